package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.PlainBufferBuilder;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferCodedInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConversion;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferInputStream;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.emulator.journal.RecordFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The append-only journal that makes tunnel state durable: tunnels created, deleted and expired,
 * partition splits and merges, checkpoints and finished channels. Each event is appended and
 * fsync'ed before the call that caused it is acknowledged. Each event records where it happened in
 * its table's write history ({@link Position}), so replay can interleave it with the table
 * journal's writes exactly: a split is applied before the first replayed write committed after it.
 *
 * <p>Format, version 1: the 8-byte magic {@code TSETUNL1}, then records of {@code int length, int
 * crc32(payload), payload}; a torn or corrupt tail is cut off. A payload is a kind byte, the
 * position (table, incarnation, last commit µs), then the event: 1 created (tunnel id, creation ns,
 * the Tunnel message, stream channels with start indices, base channels with their snapshot rows as
 * PlainBuffer), 2 deleted, 3 expired (tunnel id), 4 split, 5 merge (the key as PlainBuffer, time
 * ns), 6 checkpointed (tunnel, channel, value, sequence number), 7 finished (tunnel, channel).
 */
final class TunnelJournal implements Closeable {

    static final String FILE_NAME = "tunnels.journal";
    private static final byte[] MAGIC = {'T', 'S', 'E', 'T', 'U', 'N', 'L', '1'};

    /**
     * Where an event happened: after the table's writes up to {@code afterMicros} in the table's
     * {@code incarnation}-th life (a deleted and re-created table starts a new one).
     */
    record Position(String table, int incarnation, long afterMicros) {}

    /** One journaled event. */
    sealed interface Event {
        Position position();

        /** The event's stable kind code in the journal, never an ordinal. */
        int kind();
    }

    /** A base-data channel as created: its partition and its snapshot rows. */
    record BaseChannel(String channelId, String partitionId, List<Row> rows) {}

    record Created(
            Position position,
            String tunnelId,
            long createdNanos,
            TunnelServiceApi.Tunnel definition,
            Map<String, Integer> streamStarts,
            List<BaseChannel> baseChannels)
            implements Event {
        @Override
        public int kind() {
            return 1;
        }
    }

    record Deleted(Position position, String tunnelId) implements Event {
        @Override
        public int kind() {
            return 2;
        }
    }

    record Expired(Position position, String tunnelId) implements Event {
        @Override
        public int kind() {
            return 3;
        }
    }

    record Split(Position position, PrimaryKey at, long nanos) implements Event {
        @Override
        public int kind() {
            return 4;
        }
    }

    record Merged(Position position, PrimaryKey at, long nanos) implements Event {
        @Override
        public int kind() {
            return 5;
        }
    }

    record Checkpointed(
            Position position, String tunnelId, String channelId, String value, long sequence)
            implements Event {
        @Override
        public int kind() {
            return 6;
        }
    }

    record Finished(Position position, String tunnelId, String channelId) implements Event {
        @Override
        public int kind() {
            return 7;
        }
    }

    private final RecordFile file;

    private TunnelJournal(RecordFile file) {
        this.file = file;
    }

    /**
     * Opens (creating if needed) the journal in {@code dir}; returns it with the events it holds.
     */
    static Opened open(Path dir) throws IOException {
        RecordFile.Opened opened = RecordFile.open(dir, FILE_NAME, MAGIC);
        List<Event> events = new ArrayList<>();
        for (byte[] payload : opened.payloads()) {
            events.add(decode(payload));
        }
        return new Opened(new TunnelJournal(opened.file()), events);
    }

    /** The open journal and the events it held, oldest first. */
    record Opened(TunnelJournal journal, List<Event> events) {}

    synchronized void append(Event event) throws IOException {
        file.append(encode(event));
    }

    @Override
    public synchronized void close() throws IOException {
        file.close();
    }

    // ---- encoding ----------------------------------------------------------------------------

    private static byte[] encode(Event event) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(event.kind());
        Position p = event.position();
        out.writeUTF(p.table());
        out.writeInt(p.incarnation());
        out.writeLong(p.afterMicros());
        if (event instanceof Created c) {
            writeCreated(c, out);
        } else if (event instanceof Deleted d) {
            out.writeUTF(d.tunnelId());
        } else if (event instanceof Expired e) {
            out.writeUTF(e.tunnelId());
        } else if (event instanceof Split split) {
            writeKeyAt(split.at(), split.nanos(), out);
        } else if (event instanceof Merged m) {
            writeKeyAt(m.at(), m.nanos(), out);
        } else if (event instanceof Checkpointed c) {
            writeCheckpointed(c, out);
        } else if (event instanceof Finished f) {
            out.writeUTF(f.tunnelId());
            out.writeUTF(f.channelId());
        }
        return bytes.toByteArray();
    }

    private static void writeCreated(Created c, DataOutputStream out) throws IOException {
        out.writeUTF(c.tunnelId());
        out.writeLong(c.createdNanos());
        writeBytes(c.definition().toByteArray(), out);
        out.writeInt(c.streamStarts().size());
        for (Map.Entry<String, Integer> e : c.streamStarts().entrySet()) {
            out.writeUTF(e.getKey());
            out.writeInt(e.getValue());
        }
        out.writeInt(c.baseChannels().size());
        for (BaseChannel base : c.baseChannels()) {
            out.writeUTF(base.channelId());
            out.writeUTF(base.partitionId());
            out.writeInt(base.rows().size());
            for (Row row : base.rows()) {
                writeBytes(RecordEncoder.base(row, 0).getRecord().toByteArray(), out);
            }
        }
    }

    private static void writeKeyAt(PrimaryKey at, long nanos, DataOutputStream out)
            throws IOException {
        writeBytes(PlainBufferBuilder.buildPrimaryKeyWithHeader(at), out);
        out.writeLong(nanos);
    }

    private static void writeCheckpointed(Checkpointed c, DataOutputStream out) throws IOException {
        out.writeUTF(c.tunnelId());
        out.writeUTF(c.channelId());
        out.writeUTF(c.value());
        out.writeLong(c.sequence());
    }

    private static void writeBytes(byte[] bytes, DataOutputStream out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    // ---- decoding ----------------------------------------------------------------------------

    private static Event decode(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        int kind = in.readByte();
        Position p = new Position(in.readUTF(), in.readInt(), in.readLong());
        return switch (kind) {
            case 1 -> readCreated(p, in);
            case 2 -> new Deleted(p, in.readUTF());
            case 3 -> new Expired(p, in.readUTF());
            case 4 -> new Split(p, readKey(in), in.readLong());
            case 5 -> new Merged(p, readKey(in), in.readLong());
            case 6 -> new Checkpointed(p, in.readUTF(), in.readUTF(), in.readUTF(), in.readLong());
            case 7 -> new Finished(p, in.readUTF(), in.readUTF());
            default -> throw new IOException("Unknown tunnel journal record kind " + kind);
        };
    }

    private static Created readCreated(Position p, DataInputStream in) throws IOException {
        String tunnelId = in.readUTF();
        long createdNanos = in.readLong();
        TunnelServiceApi.Tunnel definition = TunnelServiceApi.Tunnel.parseFrom(readBytes(in));
        Map<String, Integer> starts = new LinkedHashMap<>();
        for (int i = in.readInt(); i > 0; i--) {
            starts.put(in.readUTF(), in.readInt());
        }
        List<BaseChannel> bases = new ArrayList<>();
        for (int i = in.readInt(); i > 0; i--) {
            String channelId = in.readUTF();
            String partitionId = in.readUTF();
            List<Row> rows = new ArrayList<>();
            for (int r = in.readInt(); r > 0; r--) {
                rows.add(PlainBufferConversion.toRow(readRow(readBytes(in))));
            }
            bases.add(new BaseChannel(channelId, partitionId, rows));
        }
        return new Created(p, tunnelId, createdNanos, definition, starts, bases);
    }

    private static PrimaryKey readKey(DataInputStream in) throws IOException {
        return PlainBufferConversion.toPrimaryKey(readRow(readBytes(in)).getPrimaryKey());
    }

    private static PlainBufferRow readRow(byte[] bytes) throws IOException {
        List<PlainBufferRow> rows =
                new PlainBufferCodedInputStream(new PlainBufferInputStream(ByteBuffer.wrap(bytes)))
                        .readRowsWithHeader();
        if (rows.size() != 1) {
            throw new IOException(
                    "Expected one row in a tunnel journal record, got " + rows.size());
        }
        return rows.get(0);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }
}
