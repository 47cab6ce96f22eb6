package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One response of a range read: rows in key order, and the channel id the next request starts at
 * when the server stopped early (row limit, response size, partition boundary).
 */
@Internal
public record RangePage(List<MetaRow> rows, Optional<String> nextChannelId) {

    public RangePage {
        rows = List.copyOf(rows);
        Objects.requireNonNull(nextChannelId, "nextChannelId");
    }
}
