package io.tablestorecdc.emulator.tunnel;

/** A connected tunnel client and when it was last heard from. Guarded by {@link Tunnels}' lock. */
final class ClientSession {

    private final String id;
    private final long timeoutMillis;
    private long lastSeenMillis;

    ClientSession(String id, long timeoutMillis, long nowMillis) {
        this.id = id;
        this.timeoutMillis = timeoutMillis;
        this.lastSeenMillis = nowMillis;
    }

    String id() {
        return id;
    }

    void touch(long nowMillis) {
        lastSeenMillis = nowMillis;
    }

    boolean isExpired(long nowMillis) {
        return nowMillis - lastSeenMillis > timeoutMillis;
    }
}
