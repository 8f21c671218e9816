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
}
