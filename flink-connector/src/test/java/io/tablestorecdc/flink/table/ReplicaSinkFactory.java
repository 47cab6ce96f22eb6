package io.tablestorecdc.flink.table;

import io.tablestorecdc.flink.compat.WriterInitContextSink;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Test-only SQL sink {@code 'connector' = 'test-replica'}: in {@code upsert} mode it declares
 * {@link ChangelogMode#upsert()} (no UPDATE_BEFORE), needs the DDL's primary key and keeps one row
 * per key, as a key-value store would; in {@code append} mode it accepts inserts only and keeps
 * them in order. Rows live in JVM-static maps named by {@code 'replica'}, so a test can read what
 * the job wrote while the job runs.
 */
public final class ReplicaSinkFactory implements DynamicTableSinkFactory {

    static final String IDENTIFIER = "test-replica";

    private static final ConfigOption<String> REPLICA =
            ConfigOptions.key("replica").stringType().noDefaultValue();
    private static final ConfigOption<String> MODE =
            ConfigOptions.key("mode").stringType().defaultValue("upsert");

    private static final Map<String, Map<List<Object>, List<Object>>> UPSERTED =
            new ConcurrentHashMap<>();
    private static final Map<String, List<List<Object>>> APPENDED = new ConcurrentHashMap<>();
    private static final Map<String, Set<RowKind>> KINDS = new ConcurrentHashMap<>();

    /** A copy of the rows an upsert replica holds now, by primary key (key fields as a list). */
    static Map<List<Object>, List<Object>> upserted(String replica) {
        Map<List<Object>, List<Object>> sorted = new LinkedHashMap<>();
        UPSERTED.getOrDefault(replica, Map.of()).entrySet().stream()
                .sorted(Comparator.comparing(e -> e.getKey().toString()))
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    /** A copy of the rows an append replica received, in arrival order. */
    static List<List<Object>> appended(String replica) {
        List<List<Object>> rows = APPENDED.getOrDefault(replica, List.of());
        synchronized (rows) {
            return new ArrayList<>(rows);
        }
    }

    /** Every row kind the replica has received. */
    static Set<RowKind> kinds(String replica) {
        return Set.copyOf(KINDS.getOrDefault(replica, Set.of()));
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(REPLICA);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(MODE);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        String replica = helper.getOptions().get(REPLICA);
        boolean upsert = parseMode(helper.getOptions().get(MODE));
        int[] key = context.getCatalogTable().getResolvedSchema().getPrimaryKeyIndexes();
        if (upsert && key.length == 0) {
            throw new ValidationException(
                    "The upsert replica '"
                            + replica
                            + "' needs a primary key: add PRIMARY KEY (<key columns>) NOT ENFORCED"
                            + " to its DDL, or set 'mode' = 'append'.");
        }
        UPSERTED.putIfAbsent(replica, new ConcurrentHashMap<>());
        APPENDED.putIfAbsent(replica, Collections.synchronizedList(new ArrayList<>()));
        KINDS.putIfAbsent(replica, ConcurrentHashMap.newKeySet());
        return new ReplicaSink(replica, upsert, key, context.getPhysicalRowDataType());
    }

    private static boolean parseMode(String mode) {
        if (!mode.equals("upsert") && !mode.equals("append")) {
            throw new ValidationException(
                    "Invalid 'mode' = '" + mode + "': use 'upsert' or 'append'.");
        }
        return mode.equals("upsert");
    }

    /** The planner's view of the replica: its changelog mode and how rows reach it. */
    private static final class ReplicaSink implements DynamicTableSink {
        private final String replica;
        private final boolean upsert;
        private final int[] key;
        private final org.apache.flink.table.types.DataType rowType;

        ReplicaSink(
                String replica,
                boolean upsert,
                int[] key,
                org.apache.flink.table.types.DataType rowType) {
            this.replica = replica;
            this.upsert = upsert;
            this.key = key.clone();
            this.rowType = rowType;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return upsert ? ChangelogMode.upsert() : ChangelogMode.insertOnly();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(
                    new ReplicaWriterSink(
                            replica, upsert, key, context.createDataStructureConverter(rowType)));
        }

        @Override
        public DynamicTableSink copy() {
            return new ReplicaSink(replica, upsert, key, rowType);
        }

        @Override
        public String asSummaryString() {
            return "Replica[" + replica + (upsert ? ", upsert]" : ", append]");
        }
    }

    /** The runtime sink: each subtask writes straight into the static maps. */
    private static final class ReplicaWriterSink extends WriterInitContextSink<RowData> {
        private static final long serialVersionUID = 1L;
        private final String replica;
        private final boolean upsert;
        private final int[] key;
        private final DynamicTableSink.DataStructureConverter converter;

        ReplicaWriterSink(
                String replica,
                boolean upsert,
                int[] key,
                DynamicTableSink.DataStructureConverter converter) {
            this.replica = replica;
            this.upsert = upsert;
            this.key = key.clone();
            this.converter = converter;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(
                            Thread.currentThread().getContextClassLoader()));
            return new ReplicaWriter(replica, upsert, key, converter);
        }
    }

    /** Applies one row at a time: upsert by key, or append. */
    private static final class ReplicaWriter implements SinkWriter<RowData> {
        private final String replica;
        private final boolean upsert;
        private final int[] key;
        private final DynamicTableSink.DataStructureConverter converter;

        ReplicaWriter(
                String replica,
                boolean upsert,
                int[] key,
                DynamicTableSink.DataStructureConverter converter) {
            this.replica = replica;
            this.upsert = upsert;
            this.key = key;
            this.converter = converter;
        }

        @Override
        public void write(RowData row, Context context) {
            KINDS.get(replica).add(row.getRowKind());
            Row external = (Row) converter.toExternal(row);
            List<Object> fields = new ArrayList<>();
            for (int i = 0; i < external.getArity(); i++) {
                fields.add(external.getField(i));
            }
            if (upsert) {
                upsert(row.getRowKind(), fields);
            } else if (row.getRowKind() == RowKind.INSERT) {
                APPENDED.get(replica).add(fields);
            } else {
                throw new IllegalStateException(
                        "The append replica got a " + row.getRowKind() + " row: " + fields);
            }
        }

        private void upsert(RowKind kind, List<Object> fields) {
            List<Object> id = new ArrayList<>();
            for (int i : key) {
                id.add(fields.get(i));
            }
            Map<List<Object>, List<Object>> rows = UPSERTED.get(replica);
            switch (kind) {
                case INSERT:
                case UPDATE_AFTER:
                    rows.put(id, fields);
                    break;
                case DELETE:
                    rows.remove(id);
                    break;
                default:
                    // ChangelogMode.upsert() told the planner this sink takes no UPDATE_BEFORE.
                    throw new IllegalStateException(
                            "The upsert replica got an " + kind + " row: " + fields);
            }
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }
}
