package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.tunnel.AssignedChannel;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The faults, answers and hooks a test scripts into a {@link FakeTunnelService}. */
public final class TunnelScript {

    private final Map<String, Deque<RuntimeException>> failures = new HashMap<>();
    private final Map<String, RuntimeException> failingReads = new HashMap<>();
    private final Map<String, ReadResult> reads = new HashMap<>();
    private List<AssignedChannel> nextHeartbeat;
    private TunnelException permanentFailure;
    private Runnable onConnect = () -> {};
    private Runnable onRead = () -> {};

    /** The next call of {@code action} (a TunnelProxy method name) throws {@code error}. */
    public synchronized TunnelScript failNext(String action, RuntimeException error) {
        failures.computeIfAbsent(action, a -> new ArrayDeque<>()).add(error);
        return this;
    }

    /** Every call from now on fails as the server does for an expired tunnel. */
    public synchronized TunnelScript expire() {
        permanentFailure =
                new TunnelException(Kind.EXPIRED, "OTSTunnelExpired", "fake: tunnel expired", null);
        return this;
    }

    /** Every read at {@code token} throws {@code error}. */
    public synchronized TunnelScript failReadsAt(String token, RuntimeException error) {
        failingReads.put(token, error);
        return this;
    }

    /** A read of {@code channelId} at {@code token} answers {@code result}. */
    public synchronized TunnelScript answerRead(String channelId, String token, ReadResult result) {
        reads.put(channelId + " " + token, result);
        return this;
    }

    /** The next heartbeat answers exactly this (after adopting the client's report). */
    public synchronized TunnelScript answerNextHeartbeat(List<AssignedChannel> answer) {
        nextHeartbeat = List.copyOf(answer);
        return this;
    }

    /** Runs {@code hook} whenever a client connects, before the connect answers. */
    public synchronized TunnelScript onConnect(Runnable hook) {
        onConnect = hook;
        return this;
    }

    /** Runs {@code hook} on every read, before it answers (the fake stays locked meanwhile). */
    public synchronized TunnelScript onRead(Runnable hook) {
        onRead = hook;
        return this;
    }

    /** Throws what is scripted for a call of {@code action}. */
    synchronized void check(String action) {
        Deque<RuntimeException> queued = failures.get(action);
        if (queued != null && !queued.isEmpty()) {
            throw queued.poll();
        }
        if (permanentFailure != null) {
            throw permanentFailure;
        }
    }

    synchronized Runnable connectHook() {
        return onConnect;
    }

    synchronized Runnable readHook() {
        return onRead;
    }

    /** The scripted answer of a read, or its scripted failure thrown. */
    synchronized Optional<ReadResult> read(String channelId, String token) {
        if (failingReads.containsKey(token)) {
            throw failingReads.get(token);
        }
        return Optional.ofNullable(reads.get(channelId + " " + token));
    }

    synchronized Optional<List<AssignedChannel>> takeHeartbeatAnswer() {
        Optional<List<AssignedChannel>> answer = Optional.ofNullable(nextHeartbeat);
        nextHeartbeat = null;
        return answer;
    }
}
