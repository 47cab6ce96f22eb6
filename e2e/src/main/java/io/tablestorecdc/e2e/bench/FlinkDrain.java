package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.flink.compat.WriterInitContextSink;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.RowDataChangeRecordDeserializer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;

/**
 * A Flink job (parallelism 2, a checkpoint every 2 s) reading a stream tunnel with {@link
 * TablestoreCdcSource} into a counting sink; the run ends when every expected record was seen,
 * since a stream tunnel never ends by itself.
 */
final class FlinkDrain {

    private static final int PARALLELISM = 2;
    // The sink runs in this JVM (a local mini cluster), so plain statics are the simplest channel.
    private static volatile CountWindow seen = new CountWindow(1);
    private static final AtomicLong FIRST_NANOS = new AtomicLong();

    /** The benchmark table's key and columns, typed as {@link SparkDrain#SCHEMA} types them. */
    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {
                        new VarCharType(false, VarCharType.MAX_LENGTH),
                        new BigIntType(),
                        new DoubleType(),
                        new VarCharType(VarCharType.MAX_LENGTH)
                    },
                    new String[] {"id", "n", "d", "s"});

    private static final TypeInformation<RowData> ROW_TYPE = InternalTypeInfo.of(ROW);

    private final BenchEmulator emulator;

    FlinkDrain(BenchEmulator emulator) {
        this.emulator = emulator;
    }

    /**
     * Drains the tunnel's backlog of {@code expected} records, counting them into {@code window}.
     */
    Measurement drain(String table, String tunnel, long expected, CountWindow window)
            throws Exception {
        return drain(source(emulator, table, tunnel), expected, window);
    }

    /**
     * Drains as {@link #drain(String, String, long, CountWindow)} with the built-in RowData
     * deserializer: rows of the benchmark table's columns, typed as Spark's schema types them,
     * written straight from the responses (no {@link ChangeRecord} per change).
     */
    Measurement drainRows(String table, String tunnel, long expected, CountWindow window)
            throws Exception {
        return drain(
                builder(emulator, table, tunnel, new RowDataChangeRecordDeserializer(ROW, ROW_TYPE))
                        .setMetaFullSnapshotEvery(MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY)
                        .build(),
                expected,
                window);
    }

    /** As {@link #drain(String, String, long, CountWindow)}, measured as {@code consumer}. */
    Measurement drain(
            String consumer, String table, String tunnel, long expected, CountWindow window)
            throws Exception {
        return drain(consumer, source(emulator, table, tunnel), expected, window);
    }

    /** As {@link #drain(String, String, long, CountWindow)}, with the source given. */
    <T> Measurement drain(TablestoreCdcSource<T> source, long expected, CountWindow window)
            throws Exception {
        return drain("flink", source, expected, window);
    }

    private <T> Measurement drain(
            String consumer, TablestoreCdcSource<T> source, long expected, CountWindow window)
            throws Exception {
        return run(
                consumer,
                env -> env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes"),
                expected,
                window,
                true);
    }

    /**
     * The engine's own ceiling: the same job shape over a bounded in-memory source of the same keys
     * (a parallel number sequence mapped to an array, parallelism 2), into the same sink. Without
     * checkpoints: the source has no state to keep, and a checkpoint still being triggered when the
     * finished job is cancelled only printed a failure.
     */
    Measurement drainInMemory(List<String> keys, CountWindow window) throws Exception {
        InMemoryKeys.KEYS = keys.toArray(String[]::new);
        return run(
                "flink-memory",
                env ->
                        env.fromSource(
                                new DataGeneratorSource<>(
                                        new InMemoryKeys(), keys.size(), Types.STRING),
                                WatermarkStrategy.noWatermarks(),
                                "in-memory keys"),
                keys.size(),
                window,
                false);
    }

    private <T> Measurement run(
            String consumer,
            Function<StreamExecutionEnvironment, DataStream<T>> source,
            long expected,
            CountWindow window,
            boolean checkpoints)
            throws Exception {
        seen = window;
        FIRST_NANOS.set(0);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(
                        PARALLELISM, configuration(checkpoints));
        source.apply(env).sinkTo(new CountingSink<T>()).name("counting sink");
        long start = System.nanoTime();
        JobClient job = env.executeAsync("tablestore-cdc bench " + consumer);
        try {
            awaitCount(expected, start);
            long end = System.nanoTime();
            return new Measurement(consumer, seen.count(), end - start, end - FIRST_NANOS.get());
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
            job.getJobExecutionResult().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
        }
    }

    private static void awaitCount(long expected, long start) throws InterruptedException {
        long deadline = start + TimeUnit.MINUTES.toNanos(5);
        while (seen.count() < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Flink saw " + seen.count() + " of " + expected + " records in 5 minutes");
            }
            Thread.sleep(5);
        }
    }

    private static Configuration configuration(boolean checkpoints) {
        Configuration conf = new Configuration();
        if (checkpoints) {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(2));
        }
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        return conf;
    }

    /** The source every Flink part reads with: a stream tunnel, keys only. */
    static TablestoreCdcSource<String> source(BenchEmulator emulator, String table, String tunnel) {
        return source(emulator, table, tunnel, MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY);
    }

    /** {@link #source} with {@code meta.full.snapshot.every} set. */
    static TablestoreCdcSource<String> source(
            BenchEmulator emulator, String table, String tunnel, int fullSnapshotEvery) {
        return builder(emulator, table, tunnel).setMetaFullSnapshotEvery(fullSnapshotEvery).build();
    }

    /** The builder of {@link #source}, for a part that sets more options (a meta table). */
    static TablestoreCdcSourceBuilder<String> builder(
            BenchEmulator emulator, String table, String tunnel) {
        return builder(emulator, table, tunnel, new KeyOnly());
    }

    private static <T> TablestoreCdcSourceBuilder<T> builder(
            BenchEmulator emulator,
            String table,
            String tunnel,
            ChangeRecordDeserializer<T> deserializer) {
        return emulator.connection()
                .applyTo(TablestoreCdcSource.<T>builder())
                .setTableName(table)
                .setTunnelName(tunnel)
                .setDiscoveryInterval(Duration.ofSeconds(1))
                .setDeserializer(deserializer);
    }

    /** Emits each change's primary key: the conversion to ChangeRecord is still all done. */
    private static final class KeyOnly implements ChangeRecordDeserializer<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ChangeRecord record, Collector<String> out) {
            out.collect(record.primaryKey().get(0).value().asString());
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    /** Element i of the in-memory keys (the job runs in this JVM's mini cluster). */
    private static final class InMemoryKeys implements GeneratorFunction<Long, String> {
        private static final long serialVersionUID = 1L;
        private static volatile String[] KEYS = new String[0];

        @Override
        public String map(Long index) {
            return KEYS[index.intValue()];
        }
    }

    /** Counts records into the run's window (one atomic add per record); discards them. */
    private static final class CountingSink<T> extends WriterInitContextSink<T> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(T value, Context context) {
                    if (FIRST_NANOS.get() == 0) {
                        FIRST_NANOS.compareAndSet(0, System.nanoTime());
                    }
                    seen.add(1);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
