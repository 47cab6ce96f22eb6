package io.tablestorecdc.flink.source.split;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One tunnel channel as a Flink split: the channel and where reading it resumes.
 *
 * <p>In a source of several tables a split also names its table, and its id is {@code
 * <table>/<channel id>} (table names hold no {@code /}); in a source of one table the table is left
 * out and the id is the channel id, as in state written before sources read several tables.
 *
 * <p>A split whose position is finished is a channel that delivered its last record; readers keep
 * such splits in their state until the checkpoint that contains the finish completes. Immutable;
 * serializable (plain fields) because it also travels inside source events.
 */
@Internal
public final class ChannelSplit implements SourceSplit, Serializable {

    private static final long serialVersionUID = 2L;

    /** Between the table and the channel id in a split id of a source of several tables. */
    public static final char TABLE_SEPARATOR = '/';

    /** The table, null in a source of one table. */
    private final String table;

    private final String channelId;
    private final ChannelType type;
    private final String token;
    private final long skip;

    /** A channel of the one table of a source. */
    public ChannelSplit(String channelId, ChannelType type, ChannelPosition position) {
        this(Optional.empty(), channelId, type, position);
    }

    /** A channel of {@code table}, named when the source reads several tables. */
    public ChannelSplit(
            Optional<String> table, String channelId, ChannelType type, ChannelPosition position) {
        this.table = table.orElse(null);
        this.channelId = Objects.requireNonNull(channelId, "channelId");
        this.type = Objects.requireNonNull(type, "type");
        this.token = position.token();
        this.skip = position.skip();
    }

    @Override
    public String splitId() {
        return idOf(table(), channelId);
    }

    /** The split id of {@code channelId} of {@code table} (none in a source of one table). */
    public static String idOf(Optional<String> table, String channelId) {
        return table.map(t -> t + TABLE_SEPARATOR + channelId).orElse(channelId);
    }

    /** The table of a split id of a source of several tables. */
    public static String tableOf(String splitId) {
        int at = splitId.indexOf(TABLE_SEPARATOR);
        if (at <= 0) {
            throw new IllegalArgumentException(
                    "Split id '" + splitId + "' names no table (expected <table>/<channel id>)");
        }
        return splitId.substring(0, at);
    }

    /** The channel id of a split id of a source of several tables. */
    public static String channelOf(String splitId) {
        tableOf(splitId);
        return splitId.substring(splitId.indexOf(TABLE_SEPARATOR) + 1);
    }

    /** The table, named in a source of several tables only. */
    public Optional<String> table() {
        return Optional.ofNullable(table);
    }

    /** This channel as a split of {@code table} (a source of several tables). */
    public ChannelSplit inTable(String name) {
        return new ChannelSplit(Optional.of(name), channelId, type, position());
    }

    /** This channel as its table's enumerator knows it: by channel id alone. */
    public ChannelSplit withoutTable() {
        return table == null ? this : new ChannelSplit(channelId, type, position());
    }

    public String channelId() {
        return channelId;
    }

    public ChannelType type() {
        return type;
    }

    /** Where reading resumes: a token plus the records after it already emitted. */
    public ChannelPosition position() {
        return ChannelPosition.at(token, skip);
    }

    public boolean isFinished() {
        return position().isFinished();
    }

    /** This channel at another position. */
    public ChannelSplit at(ChannelPosition next) {
        return new ChannelSplit(table(), channelId, type, next);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChannelSplit)) {
            return false;
        }
        ChannelSplit other = (ChannelSplit) o;
        return channelId.equals(other.channelId)
                && Objects.equals(table, other.table)
                && type == other.type
                && position().equals(other.position());
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, channelId, type, token, skip);
    }

    @Override
    public String toString() {
        return "ChannelSplit{" + splitId() + ", " + type.code() + ", at=" + position() + "}";
    }
}
