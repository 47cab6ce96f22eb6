package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Comparator;
import java.util.Objects;

/**
 * The primary key of a meta-table row: {@code (tunnel_id, batch, channel_id)}, all strings.
 *
 * <p>Ordered like the server orders rows (column by column, strings by code unit, which equals byte
 * order for the ASCII ids the meta table holds).
 */
@Internal
public record MetaRowKey(String tunnelId, String batch, String channelId)
        implements Comparable<MetaRowKey> {

    private static final Comparator<MetaRowKey> ORDER =
            Comparator.comparing(MetaRowKey::tunnelId)
                    .thenComparing(MetaRowKey::batch)
                    .thenComparing(MetaRowKey::channelId);

    public MetaRowKey {
        requireText(tunnelId, "tunnel_id");
        requireText(batch, "batch");
        requireText(channelId, "channel_id");
    }

    private static void requireText(String value, String column) {
        Objects.requireNonNull(value, column);
        if (value.isEmpty()) {
            throw new IllegalArgumentException("Meta-table key column " + column + " is empty");
        }
    }

    @Override
    public int compareTo(MetaRowKey other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return "(" + tunnelId + ", " + batch + ", " + channelId + ")";
    }
}
