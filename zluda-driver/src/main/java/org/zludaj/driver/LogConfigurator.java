package org.zludaj.driver;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * ZLUDA-J's logging, set up in code (logback's Configurator service, META-INF/services): every message to stderr as
 * {@code ZLUDA-J LEVEL Logger: message}, at the level {@code ZLUDA_LOG} names (trace|debug|info|warn, default warn;
 * trace also logs every driver call). Reading an XML configuration instead cost 60-70 ms of the JVM's start in the
 * application. A configuration of one's own still works: {@code ZLUDA_JVM_OPTS=-Dlogback.configurationFile=FILE}.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("ZLUDA-J %-5level %logger{0}: %msg%n");
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level(System.getenv("ZLUDA_LOG")));
        root.addAppender(stderr);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** ZLUDA_LOG's level (warn where unset or unknown). */
    static Level level(String name) {
        return name == null || name.isBlank() ? Level.WARN : Level.toLevel(name.trim(), Level.WARN);
    }
}
