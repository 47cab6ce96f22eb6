package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link TunnelSession} presents itself to the server and how often it heartbeats.
 *
 * @param clientTag a label the server shows for this client (for example the query or job name)
 * @param heartbeatInterval time between heartbeats; at least {@link #MIN_HEARTBEAT_INTERVAL}
 * @param heartbeatTimeout how long the server keeps this client without a heartbeat; at least twice
 *     the interval, so that one lost heartbeat does not cost the client its channels
 */
@Internal
public record TunnelSessionConfig(
        String clientTag, Duration heartbeatInterval, Duration heartbeatTimeout) {

    /** The SDK's own lower bound for the heartbeat interval. */
    public static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);

    /**
     * 10 s: a CLOSING or newly opened channel is noticed within 10 s, at one small request per
     * interval. (The SDK worker's default is 30 s; a connector that plans batches wants changes in
     * assignment sooner.)
     */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(10);

    /** 300 s, the SDK's default: survives a long GC pause or a short network outage. */
    public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(300);

    public TunnelSessionConfig {
        Objects.requireNonNull(clientTag, "clientTag");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
        if (heartbeatInterval.compareTo(MIN_HEARTBEAT_INTERVAL) < 0) {
            throw new IllegalArgumentException(
                    "The heartbeat interval must be at least 5 s but was "
                            + heartbeatInterval.toMillis()
                            + " ms; raise it to 5 s or more");
        }
        if (heartbeatTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException(
                    "The heartbeat timeout ("
                            + heartbeatTimeout.toSeconds()
                            + " s) must be at least twice the heartbeat interval ("
                            + heartbeatInterval.toSeconds()
                            + " s), or one slow heartbeat expires the client; raise the timeout"
                            + " or lower the interval");
        }
    }

    /** A config with the default interval and timeout. */
    public static TunnelSessionConfig withDefaults(String clientTag) {
        return new TunnelSessionConfig(
                clientTag, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_HEARTBEAT_TIMEOUT);
    }
}
