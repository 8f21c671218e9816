package org.zludaj.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ZLUDA-J's loggers: SLF4J's (logback underneath), made at the first message a logger really writes. Starting logback
 * costs 40-50 ms, a quarter of the driver's start in the application, for messages that at the default level (warn,
 * {@code ZLUDA_LOG}) are almost never written: a message below {@code ZLUDA_LOG}'s level is dropped here without
 * starting it. Where the application names a logback configuration of its own ({@code -Dlogback.configurationFile}),
 * every message goes to logback, which decides.
 */
public final class Log {
    private static final int TRACE = 0, DEBUG = 1, INFO = 2, WARN = 3;
    private static final int LEVEL = System.getProperty("logback.configurationFile") != null ? TRACE : level(System.getenv("ZLUDA_LOG"));

    private final String name;
    private volatile Logger logger;

    private Log(String name) {
        this.name = name;
    }

    public static Log of(Class<?> c) {
        return new Log(c.getName());
    }

    public static Log named(String name) {
        return new Log(name);
    }

    /** ZLUDA_LOG's level: trace, debug, info, else warn (as org.zludaj.driver.LogConfigurator sets logback). */
    static int level(String name) {
        if (name == null) return WARN;
        return switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "trace", "all" -> TRACE;
            case "debug" -> DEBUG;
            case "info" -> INFO;
            default -> WARN;
        };
    }

    private Logger logger() {
        Logger l = logger;
        if (l == null) logger = l = LoggerFactory.getLogger(name);
        return l;
    }

    public boolean isTraceEnabled() {
        return LEVEL <= TRACE && logger().isTraceEnabled();
    }

    public boolean isDebugEnabled() {
        return LEVEL <= DEBUG && logger().isDebugEnabled();
    }

    public void trace(String format, Object... args) {
        if (LEVEL <= TRACE) logger().trace(format, args);
    }

    public void debug(String message) {
        if (LEVEL <= DEBUG) logger().debug(message);
    }

    public void debug(String format, Object arg) {
        if (LEVEL <= DEBUG) logger().debug(format, arg);
    }

    public void debug(String format, Object arg1, Object arg2) {
        if (LEVEL <= DEBUG) logger().debug(format, arg1, arg2);
    }

    public void debug(String format, Object... args) {
        if (LEVEL <= DEBUG) logger().debug(format, args);
    }

    public void info(String message) {
        if (LEVEL <= INFO) logger().info(message);
    }

    public void info(String format, Object arg) {
        if (LEVEL <= INFO) logger().info(format, arg);
    }

    public void info(String format, Object arg1, Object arg2) {
        if (LEVEL <= INFO) logger().info(format, arg1, arg2);
    }

    public void info(String format, Object... args) {
        if (LEVEL <= INFO) logger().info(format, args);
    }

    public void warn(String message) {
        logger().warn(message);
    }

    public void warn(String format, Object arg) {
        logger().warn(format, arg);
    }

    public void warn(String format, Object arg1, Object arg2) {
        logger().warn(format, arg1, arg2);
    }

    public void warn(String format, Object... args) {
        logger().warn(format, args);
    }

    public void error(String message) {
        logger().error(message);
    }

    public void error(String format, Object arg) {
        logger().error(format, arg);
    }

    public void error(String format, Object arg1, Object arg2) {
        logger().error(format, arg1, arg2);
    }

    public void error(String format, Object... args) {
        logger().error(format, args);
    }
}
