package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This consumer's one tunnel client: connects once, heartbeats on a schedule, and keeps the set of
 * channels the server has assigned, with versions and statuses.
 *
 * <p>The heartbeat merge follows the SDK's own client state machine ({@code TunnelWorker}'s channel
 * bookkeeping): per channel the higher version wins (the server's copy on a tie); channels missing
 * from the answer are dropped; a channel the server sets {@code CLOSING} is no longer readable and
 * is reported {@code CLOSE} with version + 1. A channel is reported {@code TERMINATED} (version +
 * 1) only after the caller says its finish is durably committed ({@link #markFinishedCommitted}),
 * because the server opens child channels on it (invariant 3). {@code WAIT} never goes into a
 * heartbeat.
 *
 * <p>{@code OTSTunnelExpired} and {@code OTSParameterInvalid} stop the session, as they stop the
 * SDK's worker; so does a run of failed heartbeats longer than the heartbeat timeout (the server
 * has then expired this client). The error is kept for callers ({@link #failure()}, {@link
 * #checkHealthy()}). Thread-safe.
 */
@Internal
public final class TunnelSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TunnelSession.class);

    /** How long a close waits for a heartbeat in flight (one request, retried within it). */
    private static final long HEARTBEAT_STOP_MILLIS = 30_000;

    private final TunnelProxy proxy;
    private final TunnelClientId clientId;
    private final TunnelSessionConfig config;
    private final Clock clock;
    private final Object heartbeatLock = new Object();

    // Guarded by this.
    private Map<String, HeldChannel> held = new TreeMap<>();
    private final Set<String> finishedCommitted = new HashSet<>();
    private final Map<String, Long> nextSequence = new HashMap<>();
    private Instant lastSuccess;
    private long successfulHeartbeats;
    private ScheduledFuture<?> schedule;
    private ScheduledExecutorService ownedScheduler;

    private volatile TunnelException failure;
    private volatile boolean closed;

    private TunnelSession(
            TunnelProxy proxy, TunnelClientId clientId, TunnelSessionConfig config, Clock clock) {
        this.proxy = proxy;
        this.clientId = clientId;
        this.config = config;
        this.clock = clock;
        this.lastSuccess = clock.instant();
    }

    /**
     * Connects a client to the tunnel and sends the first heartbeat right away (as the SDK does),
     * so that the channels assigned to it are known when this returns. Heartbeats then run only
     * after {@link #startHeartbeats} or through {@link #heartbeatOnce()}.
     *
     * @throws TunnelException when connecting or the first heartbeat fails
     */
    public static TunnelSession open(
            TunnelProxy proxy, String tunnelId, TunnelSessionConfig config) {
        return open(proxy, tunnelId, config, Clock.systemUTC());
    }

    static TunnelSession open(
            TunnelProxy proxy, String tunnelId, TunnelSessionConfig config, Clock clock) {
        Objects.requireNonNull(proxy, "proxy");
        Objects.requireNonNull(config, "config");
        TunnelClientId id = proxy.connect(tunnelId, config.clientTag(), config.heartbeatTimeout());
        TunnelSession session = new TunnelSession(proxy, id, config, clock);
        try {
            session.heartbeatOrThrow();
        } catch (TunnelException e) {
            session.shutdownQuietly();
            throw e;
        }
        LOG.info("Tunnel client {} connected to tunnel {}", id.clientId(), id.tunnelId());
        return session;
    }

    public TunnelClientId clientId() {
        return clientId;
    }

    /** Heartbeats every {@code heartbeatInterval} on {@code scheduler} until {@link #close()}. */
    public synchronized void startHeartbeats(ScheduledExecutorService scheduler) {
        if (schedule != null) {
            throw new IllegalStateException("Heartbeats of " + clientId + " already started");
        }
        long interval = config.heartbeatInterval().toMillis();
        schedule =
                scheduler.scheduleWithFixedDelay(
                        this::scheduledHeartbeat, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** Heartbeats on a daemon thread of the session's own, shut down on {@link #close()}. */
    public synchronized void startHeartbeats() {
        ownedScheduler =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "tunnel-heartbeat-" + clientId.clientId());
                            t.setDaemon(true);
                            return t;
                        });
        startHeartbeats(ownedScheduler);
    }

    /**
     * Sends one heartbeat and merges the answer. Failures are kept, not thrown: a stopping error
     * stops the session; other errors are retried on the next heartbeat until the heartbeat timeout
     * has passed without a success.
     */
    public void heartbeatOnce() {
        try {
            heartbeatOrThrow();
        } catch (TunnelException e) {
            onHeartbeatFailure(e);
        }
    }

    private void scheduledHeartbeat() {
        try {
            heartbeatOnce();
        } catch (RuntimeException e) {
            // An exception would silently end the schedule; keep heartbeating instead.
            LOG.error("Unexpected error in the heartbeat of tunnel client {}", clientId, e);
        }
    }

    private void heartbeatOrThrow() {
        synchronized (heartbeatLock) {
            if (isStopped()) {
                return;
            }
            List<AssignedChannel> answer = proxy.heartbeat(clientId, heldChannels());
            merge(answer);
        }
    }

    private synchronized void merge(List<AssignedChannel> answer) {
        Map<String, HeldChannel> next = new TreeMap<>();
        for (AssignedChannel assigned : answer) {
            HeldChannel mine = held.get(assigned.channelId());
            if (mine != null && mine.version() > assigned.version()) {
                next.put(mine.channelId(), react(mine));
            } else if (assigned.status() != ServerChannelStatus.WAIT) {
                HeldChannel theirs =
                        new HeldChannel(
                                assigned.channelId(), assigned.version(), assigned.status());
                next.put(theirs.channelId(), react(theirs));
            }
        }
        logDropped(next);
        held = next;
        lastSuccess = clock.instant();
        successfulHeartbeats++;
    }

    // What this client answers to the status it now holds.
    private HeldChannel react(HeldChannel channel) {
        boolean finished = finishedCommitted.contains(channel.channelId());
        switch (channel.status()) {
            case OPEN:
                return finished ? bump(channel, ServerChannelStatus.TERMINATED) : channel;
            case CLOSING:
                return bump(
                        channel,
                        finished ? ServerChannelStatus.TERMINATED : ServerChannelStatus.CLOSE);
            default:
                return channel;
        }
    }

    private static HeldChannel bump(HeldChannel channel, ServerChannelStatus status) {
        return new HeldChannel(channel.channelId(), channel.version() + 1, status);
    }

    private void logDropped(Map<String, HeldChannel> next) {
        for (String id : held.keySet()) {
            if (!next.containsKey(id)) {
                LOG.info("Tunnel client {} no longer holds channel {}", clientId.clientId(), id);
            }
        }
    }

    /**
     * Records that a channel's finish (its last record) is in a durably committed batch, so that it
     * is reported {@code TERMINATED} from the next heartbeat on. Call only after the engine commit
     * (invariant 3).
     */
    public synchronized void markFinishedCommitted(String channelId) {
        finishedCommitted.add(channelId);
        HeldChannel mine = held.get(channelId);
        if (mine != null
                && (mine.status() == ServerChannelStatus.OPEN
                        || mine.status() == ServerChannelStatus.CLOSING)) {
            held.put(channelId, bump(mine, ServerChannelStatus.TERMINATED));
        }
    }

    /**
     * Stores a channel's committed position on the server, tracking its checkpoint sequence number.
     * A finished position also marks the channel finished-committed. Call only with positions from
     * a durably committed batch (invariant 3).
     */
    public void checkpoint(String channelId, ChannelPosition position) {
        long sequence = nextSequenceNumber(channelId);
        long accepted = proxy.checkpoint(clientId, channelId, position, sequence);
        synchronized (this) {
            nextSequence.put(channelId, accepted + 1);
        }
        if (position.isFinished()) {
            markFinishedCommitted(channelId);
        }
    }

    /** The server's checkpoint of a channel; also resynchronises its sequence number. */
    public ServerCheckpoint serverCheckpoint(String channelId) {
        ServerCheckpoint server = proxy.getCheckpoint(clientId, channelId);
        synchronized (this) {
            nextSequence.put(channelId, server.nextSequenceNumber());
        }
        return server;
    }

    private long nextSequenceNumber(String channelId) {
        synchronized (this) {
            Long known = nextSequence.get(channelId);
            if (known != null) {
                return known;
            }
        }
        return serverCheckpoint(channelId).nextSequenceNumber();
    }

    /** The ids of the channels the server has opened to this client (empty once stopped). */
    public synchronized Set<String> openChannelIds() {
        Set<String> open = new TreeSet<>();
        if (isStopped()) {
            return open;
        }
        for (HeldChannel channel : held.values()) {
            if (channel.status() == ServerChannelStatus.OPEN) {
                open.add(channel.channelId());
            }
        }
        return open;
    }

    /** The channels as the next heartbeat reports them, sorted by id. */
    public synchronized List<HeldChannel> heldChannels() {
        return new ArrayList<>(held.values());
    }

    /** Heartbeats the server has answered, including the first one. */
    public synchronized long successfulHeartbeats() {
        return successfulHeartbeats;
    }

    /** The error that stopped this session, if one did. */
    public Optional<TunnelException> failure() {
        return Optional.ofNullable(failure);
    }

    /** Throws the error that stopped this session, if one did; a no-op while it is healthy. */
    public void checkHealthy() {
        TunnelException stoppedBy = failure;
        if (stoppedBy != null) {
            throw new TunnelException(
                    stoppedBy.kind(),
                    stoppedBy.errorCode().orElse(null),
                    stoppedBy.getMessage(),
                    stoppedBy);
        }
        if (closed) {
            throw new TunnelException(
                    Kind.LOST_OWNERSHIP,
                    "Tunnel client " + clientId.clientId() + " was closed; open a new session");
        }
    }

    public boolean isStopped() {
        return failure != null || closed;
    }

    private void onHeartbeatFailure(TunnelException e) {
        if (e.stopsClient()) {
            stop(e);
            return;
        }
        if (e.kind() == Kind.INTERRUPTED) {
            return;
        }
        Duration silent = Duration.between(lastSuccessInstant(), clock.instant());
        if (silent.compareTo(config.heartbeatTimeout()) > 0) {
            stop(expired(silent, e));
        } else {
            LOG.warn(
                    "Heartbeat of tunnel client {} failed; retrying on the next one: {}",
                    clientId.clientId(),
                    e.getMessage());
        }
    }

    private TunnelException expired(Duration silent, TunnelException last) {
        return new TunnelException(
                Kind.LOST_OWNERSHIP,
                last.errorCode().orElse(null),
                "No heartbeat of tunnel client "
                        + clientId.clientId()
                        + " succeeded for "
                        + silent.toSeconds()
                        + " s, longer than the heartbeat timeout of "
                        + config.heartbeatTimeout().toSeconds()
                        + " s, so the server has released its channels. Restart the consumer;"
                        + " it resumes from its last committed positions. Last error: "
                        + last.getMessage(),
                last);
    }

    private synchronized Instant lastSuccessInstant() {
        return lastSuccess;
    }

    private void stop(TunnelException e) {
        failure = e;
        LOG.error("Tunnel client {} stopped: {}", clientId.clientId(), e.getMessage());
        cancelSchedule();
    }

    private void cancelSchedule() {
        ScheduledExecutorService owned;
        synchronized (this) {
            if (schedule != null) {
                schedule.cancel(false);
            }
            owned = ownedScheduler;
        }
        if (owned != null) {
            // A heartbeat in flight ends before close returns (outside the lock it may need): no
            // thread outlives the session.
            CloseSequence.of("the heartbeats of tunnel client " + clientId.clientId())
                    .thenStop("stop the heartbeat thread", owned, HEARTBEAT_STOP_MILLIS)
                    .finish();
        }
    }

    /**
     * Stops heartbeating and tells the server this client is gone (unless the server already
     * refused it), so that its channels are released at once rather than after the timeout.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        boolean shutDown = failure == null;
        closed = true;
        cancelSchedule();
        if (shutDown) {
            shutdownQuietly();
        }
    }

    private void shutdownQuietly() {
        try {
            proxy.shutdown(clientId);
        } catch (TunnelException e) {
            LOG.warn(
                    "Could not shut down tunnel client {}; the server releases it after the"
                            + " heartbeat timeout: {}",
                    clientId.clientId(),
                    e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "TunnelSession{tunnel="
                + clientId.tunnelId()
                + ", client="
                + clientId.clientId()
                + ", open="
                + openChannelIds()
                + (failure == null ? "" : ", failed=" + failure.kind())
                + (closed ? ", closed" : "")
                + "}";
    }
}
