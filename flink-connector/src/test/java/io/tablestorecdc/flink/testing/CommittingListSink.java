package io.tablestorecdc.flink.testing;

import io.tablestorecdc.flink.compat.WriterInitContextSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * An exactly-once test sink (run it with parallelism 1), a Sink V2 with a committer as a
 * two-phase-commit sink is: at each checkpoint the writer hands what it received since the last one
 * to Flink as a batch, Flink keeps the batch in the checkpoint, and the committer makes it visible
 * only once that checkpoint completes. A batch restored from a checkpoint is committed again; its
 * id makes that idempotent. Batches become visible in the order they commit, which is checkpoint
 * order.
 */
public final class CommittingListSink extends WriterInitContextSink<String>
        implements SupportsCommitter<CommittingListSink.Batch> {

    private static final long serialVersionUID = 1L;

    /** Per sink name: the committed batches by id, in commit order. */
    private static final Map<String, Map<String, List<String>>> COMMITTED =
            new ConcurrentHashMap<>();

    private final String name;

    public CommittingListSink(String name) {
        this.name = name;
        COMMITTED.putIfAbsent(name, new LinkedHashMap<>());
    }

    /** Everything committed so far, in checkpoint order. */
    public static List<String> committed(String name) {
        Map<String, List<String>> batches = COMMITTED.get(name);
        List<String> out = new ArrayList<>();
        synchronized (batches) {
            batches.values().forEach(out::addAll);
        }
        return out;
    }

    /** How many checkpoints have committed (with or without values). */
    public static int commits(String name) {
        Map<String, List<String>> batches = COMMITTED.get(name);
        synchronized (batches) {
            return batches.size();
        }
    }

    @Override
    public CommittingSinkWriter<String, Batch> createWriter(WriterInitContext context) {
        return new BatchWriter();
    }

    @Override
    public Committer<Batch> createCommitter(CommitterInitContext context) {
        return new BatchCommitter(name);
    }

    @Override
    public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
        return new BatchSerializer();
    }

    /** What one checkpoint received: committed as a whole, once. */
    public static final class Batch {
        private final String id;
        private final List<String> values;

        Batch(String id, List<String> values) {
            this.id = Objects.requireNonNull(id, "id");
            this.values = List.copyOf(values);
        }

        @Override
        public String toString() {
            return "Batch{" + id + ", " + values.size() + " values}";
        }
    }

    /** Collects values; each checkpoint (and the end of input) closes one batch, even empty. */
    private static final class BatchWriter implements CommittingSinkWriter<String, Batch> {
        private List<String> current = new ArrayList<>();

        @Override
        public void write(String value, Context context) {
            current.add(value);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public Collection<Batch> prepareCommit() {
            Batch batch = new Batch(UUID.randomUUID().toString(), current);
            current = new ArrayList<>();
            return List.of(batch);
        }

        @Override
        public void close() {}
    }

    /** Makes batches visible; a batch committed before (replayed after a restore) is kept once. */
    private static final class BatchCommitter implements Committer<Batch> {
        private final String name;

        BatchCommitter(String name) {
            this.name = name;
        }

        @Override
        public void commit(Collection<CommitRequest<Batch>> requests) {
            Map<String, List<String>> batches = COMMITTED.get(name);
            synchronized (batches) {
                for (CommitRequest<Batch> request : requests) {
                    Batch batch = request.getCommittable();
                    batches.putIfAbsent(batch.id, batch.values);
                }
            }
        }

        @Override
        public void close() {}
    }

    /** Version 1: the id, the number of values, each value (modified UTF-8). */
    private static final class BatchSerializer implements SimpleVersionedSerializer<Batch> {
        private static final int VERSION = 1;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(Batch batch) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeUTF(batch.id);
            out.writeInt(batch.values.size());
            for (String value : batch.values) {
                out.writeUTF(value);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Batch deserialize(int version, byte[] bytes) throws IOException {
            if (version != VERSION) {
                throw new IOException("Unknown batch version " + version);
            }
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            String id = in.readUTF();
            int size = in.readInt();
            List<String> values = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                values.add(in.readUTF());
            }
            return new Batch(id, values);
        }
    }
}
