package io.tablestorecdc.flink.source.split;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Persists {@link ChannelSplit}s in checkpoints and savepoints.
 *
 * <p>Version 1: channel id (UTF), channel type code (UTF, "base" or "stream"), finished flag, then
 * for an unfinished split the token (int length + UTF-8 bytes, as tokens may exceed the 64 KB of
 * writeUTF) and the skip count (long). Version 2: a table flag and, when set, the table name (UTF)
 * (a source of several tables), then version 1. Old versions stay readable; trailing bytes are
 * rejected.
 */
@Internal
public final class ChannelSplitSerializer implements SimpleVersionedSerializer<ChannelSplit> {

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;
    public static final int CURRENT_VERSION = VERSION_2;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(ChannelSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public ChannelSplit deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        ChannelSplit split = read(version, in);
        requireFullyRead(in, "channel split");
        return split;
    }

    /** Writes a split in the current version (also used inside the enumerator state). */
    public static void write(ChannelSplit split, DataOutputView out) throws IOException {
        out.writeBoolean(split.table().isPresent());
        if (split.table().isPresent()) {
            out.writeUTF(split.table().get());
        }
        out.writeUTF(split.channelId());
        out.writeUTF(split.type().code());
        ChannelPosition position = split.position();
        out.writeBoolean(position.isFinished());
        if (!position.isFinished()) {
            byte[] token = position.token().getBytes(StandardCharsets.UTF_8);
            out.writeInt(token.length);
            out.write(token);
            out.writeLong(position.skip());
        }
    }

    /** Reads a split written by {@code version}. */
    public static ChannelSplit read(int version, DataInputView in) throws IOException {
        switch (version) {
            case VERSION_1:
                return readV1(Optional.empty(), in);
            case VERSION_2:
                Optional<String> table =
                        in.readBoolean() ? Optional.of(in.readUTF()) : Optional.empty();
                return readV1(table, in);
            default:
                throw new IOException(
                        "Unknown channel split version "
                                + version
                                + "; this build reads version "
                                + CURRENT_VERSION
                                + " and older. The state was written by a newer connector:"
                                + " upgrade the connector to restore it.");
        }
    }

    private static ChannelSplit readV1(Optional<String> table, DataInputView in)
            throws IOException {
        String channelId = in.readUTF();
        ChannelType type = readType(in.readUTF());
        if (in.readBoolean()) {
            return new ChannelSplit(table, channelId, type, ChannelPosition.finished());
        }
        int length = in.readInt();
        if (length <= 0 || length > 16 * 1024 * 1024) {
            throw new IOException(
                    "Corrupt channel split " + channelId + ": token length " + length);
        }
        byte[] token = new byte[length];
        in.readFully(token);
        long skip = in.readLong();
        ChannelPosition position =
                ChannelPosition.at(new String(token, StandardCharsets.UTF_8), skip);
        return new ChannelSplit(table, channelId, type, position);
    }

    private static ChannelType readType(String code) throws IOException {
        try {
            return ChannelType.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt channel split: " + e.getMessage(), e);
        }
    }

    public static void requireFullyRead(DataInputDeserializer in, String what) throws IOException {
        if (in.available() > 0) {
            throw new IOException(
                    "Corrupt "
                            + what
                            + ": "
                            + in.available()
                            + " unexpected trailing bytes. The state is damaged or was written by"
                            + " an incompatible connector version.");
        }
    }
}
