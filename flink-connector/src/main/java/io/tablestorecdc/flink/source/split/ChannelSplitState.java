package io.tablestorecdc.flink.source.split;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * The mutable reading state of one split inside a reader: the position right after the last record
 * the reader emitted. Only the reader's mailbox thread touches it.
 */
@Internal
public final class ChannelSplitState {

    private final ChannelSplit split;

    /** The split's table, null in a source of one table (read per record, so kept). */
    private final String table;

    private ChannelPosition position;

    public ChannelSplitState(ChannelSplit split) {
        this.split = split;
        this.table = split.table().orElse(null);
        this.position = split.position();
    }

    public String channelId() {
        return split.channelId();
    }

    /** The split's id (the channel id, or {@code <table>/<channel id>}). */
    public String splitId() {
        return split.splitId();
    }

    /** The split's table, named in a source of several tables. */
    public Optional<String> table() {
        return split.table();
    }

    /** The split's table, or {@code oneTable} in a source of one table; no allocation. */
    public String tableOr(String oneTable) {
        return table == null ? oneTable : table;
    }

    /** Whether the split names its table (a source of several tables). */
    public boolean namesTable() {
        return table != null;
    }

    public ChannelPosition position() {
        return position;
    }

    /** Records that every record up to {@code next} has been emitted. */
    public void advanceTo(ChannelPosition next) {
        position = next;
    }

    /** The split as it would be checkpointed now. */
    public ChannelSplit toSplit() {
        return split.at(position);
    }

    @Override
    public String toString() {
        return "ChannelSplitState{" + split.splitId() + ", at=" + position + "}";
    }
}
