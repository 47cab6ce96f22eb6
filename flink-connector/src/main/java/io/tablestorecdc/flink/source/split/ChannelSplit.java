package io.tablestorecdc.flink.source.split;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One tunnel channel as a Flink split: the channel and where reading it resumes.
 *
 * <p>A split whose position is finished is a channel that delivered its last record; readers keep
 * such splits in their state until the checkpoint that contains the finish completes. Immutable;
 * serializable (plain fields) because it also travels inside source events.
 */
@Internal
public final class ChannelSplit implements SourceSplit, Serializable {

    private static final long serialVersionUID = 1L;

    private final String channelId;
    private final ChannelType type;
    private final String token;
    private final long skip;

    public ChannelSplit(String channelId, ChannelType type, ChannelPosition position) {
        this.channelId = Objects.requireNonNull(channelId, "channelId");
        this.type = Objects.requireNonNull(type, "type");
        this.token = position.token();
        this.skip = position.skip();
    }

    @Override
    public String splitId() {
        return channelId;
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
        return new ChannelSplit(channelId, type, next);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChannelSplit)) {
            return false;
        }
        ChannelSplit other = (ChannelSplit) o;
        return channelId.equals(other.channelId)
                && type == other.type
                && position().equals(other.position());
    }

    @Override
    public int hashCode() {
        return Objects.hash(channelId, type, token, skip);
    }

    @Override
    public String toString() {
        return "ChannelSplit{" + channelId + ", " + type.code() + ", at=" + position() + "}";
    }
}
