package io.tablestorecdc.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("io.tablestorecdc.spark.CrashingProvider")}: the tablestore-cdc source unchanged,
 * wrapped so that the test's child driver can kill itself at a named point of a batch ({@link
 * CrashPoint}): right after the source planned a batch (before Spark logs its offset), or right
 * after a read task of the batch filled its end position. Only the first batch with reads that a
 * run plans is armed, so that a batch re-run after the crash goes through.
 *
 * <p>Before killing itself after the fills, the reader writes the rows it read to {@link
 * #HALTED_ROWS} in the directory named by system property {@code crash.dir}, so that the sink of
 * the next run can check that the re-run replays exactly those rows.
 */
public final class CrashingProvider implements TableProvider {

    /** File (in {@code crash.dir}) with the rows a task read before its JVM was killed. */
    static final String HALTED_ROWS = "halted-after-fills.txt";

    /** The end offset of the first batch with reads that this JVM planned: the armed batch. */
    private static volatile String armedEnd = "";

    private final TablestoreCdcProvider delegate = new TablestoreCdcProvider();

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return delegate.inferSchema(options);
    }

    @Override
    public boolean supportsExternalMetadata() {
        return delegate.supportsExternalMetadata();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> props) {
        return new CrashingTable((SupportsRead) delegate.getTable(schema, partitioning, props));
    }

    /** One change row in the text form both the reader and the sink write. */
    static String line(String id, String op, int epoch, long timestamp, int row, String channel) {
        return id + "|" + op + "|" + epoch + ":" + timestamp + ":" + row + "|" + channel;
    }

    private record CrashingTable(SupportsRead table) implements SupportsRead {

        @Override
        public String name() {
            return table.name();
        }

        @Override
        public StructType schema() {
            return table.schema();
        }

        @Override
        public Set<TableCapability> capabilities() {
            return table.capabilities();
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            ScanBuilder builder = table.newScanBuilder(options);
            return () -> new CrashingScan(builder.build());
        }
    }

    private record CrashingScan(Scan scan) implements Scan {

        @Override
        public StructType readSchema() {
            return scan.readSchema();
        }

        @Override
        public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
            return new CrashingStream(scan.toMicroBatchStream(checkpointLocation), readSchema());
        }

        @Override
        public CustomMetric[] supportedCustomMetrics() {
            return scan.supportedCustomMetrics();
        }
    }

    /** Delegates everything; kills the JVM after planning, or arms the readers of its batch. */
    private static final class CrashingStream
            implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {

        private final MicroBatchStream stream;
        private final StructType schema;

        CrashingStream(MicroBatchStream stream, StructType schema) {
            this.stream = stream;
            this.schema = schema;
        }

        private SupportsTriggerAvailableNow admission() {
            return (SupportsTriggerAvailableNow) stream;
        }

        @Override
        public Offset latestOffset(Offset start, ReadLimit limit) {
            Offset end = admission().latestOffset(start, limit);
            boolean reads = !TablestoreOffset.fromJson(end.json()).read().isEmpty();
            if (armedEnd.isEmpty() && !end.json().equals(start.json()) && reads) {
                armedEnd = end.json();
                if (CrashPoint.isArmed(CrashPoint.BEFORE_OFFSET_LOG)) {
                    CrashPoint.killSelf("planned " + end.json() + "; offset log not written");
                }
            }
            return end;
        }

        @Override
        public InputPartition[] planInputPartitions(Offset start, Offset end) {
            InputPartition[] partitions = stream.planInputPartitions(start, end);
            boolean armed =
                    CrashPoint.isArmed(CrashPoint.AFTER_FILLS) && armedEnd.equals(end.json());
            InputPartition[] wrapped = new InputPartition[partitions.length];
            for (int i = 0; i < partitions.length; i++) {
                wrapped[i] = new ArmedPartition(partitions[i], armed);
            }
            return wrapped;
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return new CrashingReaderFactory(
                    stream.createReaderFactory(),
                    new Ordinals(
                            0,
                            schema.fieldIndex(OutputSchema.OP),
                            schema.fieldIndex(OutputSchema.SEQ),
                            schema.fieldIndex(OutputSchema.CHANNEL)),
                    System.getProperty("crash.dir"));
        }

        @Override
        public Offset latestOffset() {
            return stream.latestOffset();
        }

        @Override
        public ReadLimit getDefaultReadLimit() {
            return admission().getDefaultReadLimit();
        }

        @Override
        public Offset reportLatestOffset() {
            return admission().reportLatestOffset();
        }

        @Override
        public void prepareForTriggerAvailableNow() {
            admission().prepareForTriggerAvailableNow();
        }

        @Override
        public Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
            return ((ReportsSourceMetrics) stream).metrics(latestConsumedOffset);
        }

        @Override
        public Offset initialOffset() {
            return stream.initialOffset();
        }

        @Override
        public Offset deserializeOffset(String json) {
            return stream.deserializeOffset(json);
        }

        @Override
        public void commit(Offset end) {
            stream.commit(end);
        }

        @Override
        public void stop() {
            stream.stop();
        }
    }

    private record ArmedPartition(InputPartition partition, boolean killAfterFill)
            implements InputPartition {}

    private record Ordinals(int id, int op, int seq, int channel) implements java.io.Serializable {}

    private record CrashingReaderFactory(
            PartitionReaderFactory factory, Ordinals ordinals, String crashDir)
            implements PartitionReaderFactory {

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            ArmedPartition armed = (ArmedPartition) partition;
            PartitionReader<InternalRow> reader = factory.createReader(armed.partition());
            return armed.killAfterFill() ? new CrashingReader(reader, this) : reader;
        }
    }

    /** Records the rows it passes on; once the channel's part is done and filled, kills the JVM. */
    private static final class CrashingReader implements PartitionReader<InternalRow> {

        private final PartitionReader<InternalRow> reader;
        private final CrashingReaderFactory context;
        private final List<String> rows = new ArrayList<>();

        CrashingReader(PartitionReader<InternalRow> reader, CrashingReaderFactory context) {
            this.reader = reader;
            this.context = context;
        }

        @Override
        public boolean next() throws IOException {
            if (reader.next()) {
                rows.add(lineOf(reader.get()));
                return true;
            }
            // The channel reader fills its end position before it reports the end.
            writeHaltedRows();
            CrashPoint.killSelf("a read task filled its end position; sink not written");
            return false;
        }

        private String lineOf(InternalRow row) {
            Ordinals o = context.ordinals();
            InternalRow seq = row.getStruct(o.seq(), 3);
            return line(
                    row.getUTF8String(o.id()).toString(),
                    row.getUTF8String(o.op()).toString(),
                    seq.getInt(0),
                    seq.getLong(1),
                    seq.getInt(2),
                    row.getUTF8String(o.channel()).toString());
        }

        private void writeHaltedRows() {
            try {
                Path dir = Path.of(context.crashDir());
                Path tmp = dir.resolve(HALTED_ROWS + ".tmp");
                Files.write(tmp, rows.stream().sorted().toList());
                Files.move(
                        tmp,
                        dir.resolve(HALTED_ROWS),
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public InternalRow get() {
            return reader.get();
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            return reader.currentMetricsValues();
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
