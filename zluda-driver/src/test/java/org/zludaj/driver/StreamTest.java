package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.zludaj.api.CuResult;

/** Stream ordering and CUDA's implicit synchronization between the legacy default stream and blocking streams. */
class StreamTest {
    final Context c = new Context(0, false, 0);
    final List<String> log = new CopyOnWriteArrayList<>();

    Stream.Op note(String s) {
        return () -> log.add(s);
    }

    /** An operation that waits until the test releases it. */
    Stream.Op gate(CountDownLatch latch, String s) {
        return () -> {
            try {
                assertTrue(latch.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            log.add(s);
        };
    }

    @Test
    void operationsOfAStreamRunInOrderAndAsynchronously() throws Exception {
        Stream s = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false));
        CountDownLatch open = new CountDownLatch(1);
        s.enqueue("a", gate(open, "a"), null, null);
        for (int i = 0; i < 20; i++) s.enqueue("n", note("n" + i), null, null);
        assertFalse(s.idle(), "the caller returned while the stream's work is pending");
        assertTrue(log.isEmpty());
        open.countDown();
        s.synchronize();
        assertEquals("a", log.get(0));
        for (int i = 0; i < 20; i++) assertEquals("n" + i, log.get(i + 1));
    }

    @Test
    void legacyStreamWaitsForBlockingStreamsButNotForNonBlockingOnes() throws Exception {
        Stream blocking = c.add(new Stream(c, 0, 0, false)), nonBlocking = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false));
        CountDownLatch b = new CountDownLatch(1), nb = new CountDownLatch(1);
        blocking.enqueue("b", gate(b, "blocking"), null, null);
        nonBlocking.enqueue("nb", gate(nb, "nonblocking"), null, null);
        c.legacy.enqueue("l", note("legacy"), null, null);
        Thread.sleep(100);
        assertFalse(log.contains("legacy"), "legacy work waits for the blocking stream");
        b.countDown();
        c.legacy.synchronize();
        assertEquals(List.of("blocking", "legacy"), log, "and not for the non-blocking one, still pending");
        nb.countDown();
        nonBlocking.synchronize();
        // a blocking stream's later work waits for the legacy stream's earlier work
        CountDownLatch l = new CountDownLatch(1);
        c.legacy.enqueue("l2", gate(l, "legacy2"), null, null);
        blocking.enqueue("b2", note("blocking2"), null, null);
        Thread.sleep(100);
        assertFalse(log.contains("blocking2"));
        l.countDown();
        blocking.synchronize();
        assertTrue(log.indexOf("legacy2") < log.indexOf("blocking2"));
    }

    @Test
    void waitOnAnotherStreamsRecordedWork() throws Exception {
        Stream producer = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false)), consumer = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false));
        CountDownLatch p = new CountDownLatch(1);
        producer.enqueue("p", gate(p, "produce"), null, null);
        var recorded = producer.enqueue("record", () -> {}, null, null);
        consumer.enqueue("wait", () -> {}, recorded, null);
        consumer.enqueue("c", note("consume"), null, null);
        Thread.sleep(100);
        assertTrue(log.isEmpty(), "the consumer waits for the producer's record");
        p.countDown();
        consumer.synchronize();
        assertEquals(List.of("produce", "consume"), log);
    }

    @Test
    void firstErrorIsReportedBySynchronizationThenForgotten() throws Exception {
        Stream s = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false));
        s.enqueue("bad", () -> { throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "first"); }, null, null);
        s.enqueue("bad2", () -> { throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "second"); }, null, null);
        s.enqueue("after", note("ran"), null, null);
        CudaException e = assertThrows(CudaException.class, s::synchronize);
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, e.result());
        assertEquals(List.of("ran"), log, "later work still runs");
        s.synchronize();  // forgotten
        // a synchronous call gets its own error, and the stream keeps none
        CudaException own = assertThrows(CudaException.class, () -> s.run("sync", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "own");
        }));
        assertEquals("own", own.getMessage());
        s.synchronize();
        // unexpected exceptions become CUDA_ERROR_UNKNOWN, never escape
        s.enqueue("npe", () -> { throw new NullPointerException("bug"); }, null, null);
        assertEquals(CuResult.CUDA_ERROR_UNKNOWN, assertThrows(CudaException.class, s::synchronize).result());
    }

    @Test
    void contextSynchronizeWaitsForEveryStream() throws Exception {
        Stream a = c.add(new Stream(c, Stream.NON_BLOCKING, 0, false));
        CountDownLatch open = new CountDownLatch(1);
        a.enqueue("a", gate(open, "a"), null, null);
        c.perThreadStream().enqueue("t", note("t"), null, null);
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException ignored) {
            }
            open.countDown();
        });
        t.start();
        c.synchronize();
        assertTrue(log.containsAll(List.of("a", "t")));
        t.join();
    }

    /** GPU backends submit from the caller's thread when nothing is pending, and queue behind pending work otherwise. */
    @Test
    void submitRunsOnTheCallerOnlyWhereNothingIsPending() throws Exception {
        Stream s = c.add(new Stream(c, 0, 0, false));
        Thread caller = Thread.currentThread();
        List<Thread> ran = new CopyOnWriteArrayList<>();
        s.submit("idle", () -> ran.add(Thread.currentThread()), true);
        assertEquals(List.of(caller), ran, "an idle stream's submission runs at once on the caller");
        s.submit("host", () -> ran.add(Thread.currentThread()), false);
        s.synchronize();
        assertNotSame(caller, ran.get(1), "the host backend's work runs on a stream thread");

        CountDownLatch open = new CountDownLatch(1);
        s.enqueue("gate", gate(open, "gate"), null, null);
        s.submit("after", note("after"), true);
        Thread.sleep(50);
        assertTrue(log.isEmpty(), "a submission waits behind the stream's pending work");
        open.countDown();
        s.synchronize();
        assertEquals(List.of("gate", "after"), log);

        // the legacy stream's submission waits for a blocking stream's pending work, then runs in order
        log.clear();
        CountDownLatch b = new CountDownLatch(1);
        s.enqueue("b", gate(b, "blocking"), null, null);
        c.legacy.submit("l", note("legacy"), true);
        Thread.sleep(50);
        assertTrue(log.isEmpty());
        b.countDown();
        c.legacy.synchronize();
        assertEquals(List.of("blocking", "legacy"), log);

        // a synchronous operation on the caller reports its own error; the stream keeps none
        CudaException e = assertThrows(CudaException.class, () -> s.run("fails", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no");
        }, true));
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, e.result());
        s.synchronize();
        // an asynchronous one's error is the stream's, reported by its next synchronization
        s.submit("fails later", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "later");
        }, true);
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, assertThrows(CudaException.class, s::synchronize).result());
    }
}
