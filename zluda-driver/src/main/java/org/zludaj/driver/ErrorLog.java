package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.nativ.HostRuntime;

/**
 * The driver's error log (CUDA 12.9's error log management: cuLogs*, CUDA_LOG_FILE): every failing driver call adds
 * ZLUDA-J's own explanation of the error and the CUresult it returns. The latest 25,600 bytes are kept
 * (as NVIDIA's driver keeps), numbered so that an iterator (cuLogsCurrent) names the next one; registered callbacks
 * receive each message; CUDA_LOG_FILE=stdout|stderr|PATH writes them there too.
 */
final class ErrorLog {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(ErrorLog.class);
    static final int CAPACITY = 25600;
    /** Made where a message's text is first made: java.time's formatter costs milliseconds at the driver's start. */
    private static final class Time {
        static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
    }

    /**
     * A message, its time and thread: its text ({@link #text}) is made where it is read (the first failing call of a
     * process paid 10-30 ms for java.time's formatter and the time zone's rules: cudart's first cuCtxGetDevice fails).
     */
    record Entry(long sequence, long millis, long thread, String message) {
        String text() {
            return prefix(millis, thread) + message;
        }

        /** The text's length, without making it: "[HH:mm:ss.SSS][thread][CUDA][E] " and the message. */
        int length() {
            return 14 + Long.toString(thread).length() + 2 + 10 + message.length();
        }
    }

    static String prefix(long millis, long thread) {
        LocalTime t = LocalTime.ofInstant(java.time.Instant.ofEpochMilli(millis), java.time.ZoneId.systemDefault());
        return "[" + t.format(Time.FORMAT) + "][" + thread + "][CUDA][E] ";
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long next;
    private int bytes;
    /** Callback handle -> {function, user data}. */
    private final Map<Long, long[]> callbacks = new LinkedHashMap<>();
    private final String file = System.getenv("CUDA_LOG_FILE");

    /**
     * A failing call, as NVIDIA's driver logs one (measured on an H200): why, then "Returning N (NAME) from function";
     * callbacks receive each message alone, the kept log and CUDA_LOG_FILE with "[time][thread][CUDA][E] " before it.
     */
    void add(String function, String why, int result) {
        add(why);
        add("Returning " + result + " (" + org.zludaj.api.CuResult.name(result) + ") from " + function);
    }

    private void add(String message) {
        long millis = System.currentTimeMillis(), thread = HostRuntime.threadId();
        List<long[]> notify;
        Entry entry;
        synchronized (this) {
            entry = new Entry(next++, millis, thread, message);
            entries.addLast(entry);
            bytes += entry.length() + 1;
            while (bytes > CAPACITY && entries.size() > 1) bytes -= entries.removeFirst().length() + 1;
            notify = new ArrayList<>(callbacks.values());
        }
        byte[] bytesOf = message.getBytes(StandardCharsets.UTF_8);
        for (long[] cb : notify) HostRuntime.callLogCallback(cb[0], cb[1], 0 /* CU_LOG_LEVEL_ERROR */, bytesOf);
        if (file != null && !file.isEmpty()) {
            String text = entry.text();
            if (file.equals("stdout")) System.out.println(text);
            else if (file.equals("stderr")) System.err.println(text);
            else {
                try {
                    java.nio.file.Files.writeString(java.nio.file.Path.of(file), text + "\n", java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                } catch (java.io.IOException | RuntimeException e) {
                    LOG.debug("CUDA_LOG_FILE {}: {}", file, e.toString());
                }
            }
        }
    }

    /** The number the next message will have (an iterator at the end). */
    synchronized long next() {
        return next;
    }

    /** The messages from {@code from} (or all kept), oldest first. */
    synchronized List<Entry> since(long from) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) if (e.sequence() >= from) out.add(e);
        return out;
    }

    synchronized void register(long handle, long function, long userData) {
        callbacks.put(handle, new long[] {function, userData});
    }

    synchronized boolean unregister(long handle) {
        return callbacks.remove(handle) != null;
    }
}
