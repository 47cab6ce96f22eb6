package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.tunnel.HeldChannel;
import java.util.ArrayList;
import java.util.List;

/** What clients asked a {@link FakeTunnelService}, in order, for tests that count or inspect it. */
public final class TunnelRequests {

    private static final String READ = "readRecords:";

    private final List<String> calls = new ArrayList<>();
    private final List<String> readTokens = new ArrayList<>();
    private final List<String> pushes = new ArrayList<>();
    private final List<List<HeldChannel>> heartbeats = new ArrayList<>();
    private final List<String> shutdowns = new ArrayList<>();

    synchronized void call(String call) {
        calls.add(call);
    }

    synchronized void read(String token) {
        readTokens.add(token);
    }

    synchronized void push(String channelAndPosition) {
        pushes.add(channelAndPosition);
    }

    synchronized void heartbeat(List<HeldChannel> held) {
        heartbeats.add(List.copyOf(held));
    }

    synchronized void shutdown(String clientId) {
        shutdowns.add(clientId);
    }

    /** Every call, as "action" or "action:channel". */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** The channel of every read, in order. */
    public synchronized List<String> reads() {
        return calls.stream()
                .filter(c -> c.startsWith(READ))
                .map(c -> c.substring(READ.length()))
                .toList();
    }

    /** The token of every read, in order. */
    public synchronized List<String> readTokens() {
        return List.copyOf(readTokens);
    }

    /** Every checkpoint pushed, as "channel position". */
    public synchronized List<String> pushes() {
        return List.copyOf(pushes);
    }

    /** Every heartbeat's report, in order. */
    public synchronized List<List<HeldChannel>> heartbeats() {
        return List.copyOf(heartbeats);
    }

    public synchronized List<HeldChannel> lastHeartbeat() {
        return heartbeats.get(heartbeats.size() - 1);
    }

    /** Ids of the clients shut down, in order. */
    public synchronized List<String> shutdowns() {
        return List.copyOf(shutdowns);
    }
}
