package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Snapshots a {@link MetaTable} handle has lately read or written, so that planning a delta does
 * not read its start and base again: their manifests, and the entries of full ones. Committed
 * snapshots never change, and a purged or deleted one is forgotten. Thread-safe.
 */
final class KnownSnapshots {
    private static final int KEPT = 4;

    private final Map<MetaRowKey, MetaRowFormat.Manifest> manifests = lru();
    private final Map<MetaRowKey, Map<String, ChannelCheckpoint>> fulls = lru();

    private static <V> Map<MetaRowKey, V> lru() {
        return new LinkedHashMap<>(8, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<MetaRowKey, V> eldest) {
                return size() > KEPT;
            }
        };
    }

    private static MetaRowKey key(String tunnelId, BatchToken token) {
        return MetaRowFormat.manifestKey(tunnelId, token);
    }

    synchronized void manifest(String tunnelId, BatchToken token, MetaRowFormat.Manifest manifest) {
        manifests.put(key(tunnelId, token), manifest);
    }

    synchronized Optional<MetaRowFormat.Manifest> manifest(String tunnelId, BatchToken token) {
        return Optional.ofNullable(manifests.get(key(tunnelId, token)));
    }

    synchronized void full(
            String tunnelId, BatchToken token, Map<String, ChannelCheckpoint> entries) {
        fulls.put(key(tunnelId, token), Collections.unmodifiableMap(new TreeMap<>(entries)));
    }

    synchronized Optional<Map<String, ChannelCheckpoint>> full(String tunnelId, BatchToken token) {
        return Optional.ofNullable(fulls.get(key(tunnelId, token)));
    }

    synchronized void forget(String tunnelId, BatchToken token) {
        manifests.remove(key(tunnelId, token));
        fulls.remove(key(tunnelId, token));
    }
}
