package io.tablestorecdc.flink.table;

import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import io.tablestorecdc.flink.source.deserializer.ValuesField;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The SQL source: a {@link TablestoreCdcSource} of rows, in upsert mode followed by a keyed merge
 * of partial updates ({@link PartialUpdateMerger}). The secret never appears in its summary.
 */
@Internal
public final class TablestoreCdcTableSource implements ScanTableSource, SupportsReadingMetadata {

    private static final String TOUCHED_FIELD = "$touched";

    private final Function<TablestoreCdcSourceBuilder<RowData>, TablestoreCdcSource<RowData>>
            configured;
    private final String tableName;
    private final DataType physicalType;
    private final int[] primaryKey;
    private final ChangelogModeOption mode;
    private List<String> metadataKeys = List.of();
    private DataType producedType;

    TablestoreCdcTableSource(
            Function<TablestoreCdcSourceBuilder<RowData>, TablestoreCdcSource<RowData>> configured,
            String tableName,
            DataType physicalType,
            int[] primaryKey,
            ChangelogModeOption mode) {
        this.configured = configured;
        this.tableName = tableName;
        this.physicalType = physicalType;
        this.primaryKey = primaryKey.clone();
        this.mode = mode;
        this.producedType = physicalType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        switch (mode) {
            case UPSERT:
                return ChangelogMode.upsert();
            case ALL:
                return ChangelogMode.all();
            default:
                return ChangelogMode.insertOnly();
        }
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        RowType physicalRow = (RowType) physicalType.getLogicalType();
        List<ReadableMetadata> metadata = new ArrayList<>();
        metadataKeys.forEach(k -> metadata.add(ReadableMetadata.of(k)));
        TypeInformation<RowData> outputType = context.createTypeInformation(producedType);
        TypeInformation<RowData> changeType =
                mode == ChangelogModeOption.UPSERT
                        ? context.createTypeInformation(withTouchedField(producedType))
                        : outputType;
        TablestoreCdcSource<RowData> source =
                configured.apply(
                        TablestoreCdcSource.<RowData>builder()
                                .setDeserializer(
                                        new ChangeRowDeserializer(
                                                tableName,
                                                physicalRow,
                                                metadata,
                                                mode,
                                                changeType)));
        return new Provider(source, outputType, physicalRow.getFieldCount());
    }

    /**
     * An unbounded read without checkpointing would stall silently: positions are committed, and
     * finished channels reported to the tunnel server (which opens the stream after the base data,
     * and the children of a split), only when a checkpoint completes. Refused before the job
     * starts.
     */
    private void requireCheckpointing(StreamExecutionEnvironment env, Boundedness boundedness) {
        if (boundedness == Boundedness.BOUNDED
                || env.getCheckpointConfig().isCheckpointingEnabled()) {
            return;
        }
        throw new ValidationException(
                "Table '"
                        + tableName
                        + "' (connector '"
                        + TablestoreCdcTableFactory.IDENTIFIER
                        + "') reads an unbounded change stream, which needs checkpointing: the"
                        + " source commits its positions, and lets the tunnel server go on after"
                        + " the base data or a partition split, only when a checkpoint completes."
                        + " Without checkpoints it stops there with nothing logged. Turn"
                        + " checkpointing on: in SQL, SET 'execution.checkpointing.interval' ="
                        + " '10s'; in the Flink configuration, execution.checkpointing.interval:"
                        + " 10 s; in a program, env.enableCheckpointing(10_000). For a bounded read,"
                        + " set 'scan.bounded.stop-at' instead.");
    }

    private static DataType withTouchedField(DataType produced) {
        List<DataTypes.Field> fields = new ArrayList<>();
        List<String> names = DataType.getFieldNames(produced);
        List<DataType> types = DataType.getFieldDataTypes(produced);
        for (int i = 0; i < names.size(); i++) {
            fields.add(DataTypes.FIELD(names.get(i), types.get(i)));
        }
        fields.add(DataTypes.FIELD(TOUCHED_FIELD, DataTypes.BYTES().notNull()));
        return DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull();
    }

    /** Builds the DataStream: the source, and in upsert mode the keyed merge. */
    private final class Provider implements DataStreamScanProvider {
        private final TablestoreCdcSource<RowData> source;
        private final TypeInformation<RowData> outputType;
        private final int physicalArity;

        Provider(
                TablestoreCdcSource<RowData> source,
                TypeInformation<RowData> outputType,
                int physicalArity) {
            this.source = source;
            this.outputType = outputType;
            this.physicalArity = physicalArity;
        }

        @Override
        public DataStream<RowData> produceDataStream(
                ProviderContext provider, StreamExecutionEnvironment env) {
            requireCheckpointing(env, source.getBoundedness());
            DataStreamSource<RowData> changes =
                    env.fromSource(
                            source,
                            WatermarkStrategy.noWatermarks(),
                            "TablestoreCdcSource[" + tableName + "]");
            provider.generateUid("source").ifPresent(changes::uid);
            if (mode != ChangelogModeOption.UPSERT) {
                return changes;
            }
            LogicalType[] types =
                    ((RowType) producedType.getLogicalType())
                            .getChildren()
                            .toArray(new LogicalType[0]);
            var merged =
                    changes.keyBy(new PrimaryKeySelector(types, primaryKey), Types.STRING)
                            .process(
                                    new PartialUpdateMerger(
                                            types,
                                            physicalArity,
                                            ValuesField.indexIn(
                                                    (RowType) physicalType.getLogicalType()),
                                            outputType))
                            .returns(outputType)
                            .name("MergePartialUpdates[" + tableName + "]");
            provider.generateUid("merge-partial-updates").ifPresent(merged::uid);
            return merged;
        }

        @Override
        public boolean isBounded() {
            return source.getBoundedness()
                    == org.apache.flink.api.connector.source.Boundedness.BOUNDED;
        }
    }

    /** The primary key of a row as one string (only used to route rows to keyed state). */
    private static final class PrimaryKeySelector implements KeySelector<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final LogicalType[] types;
        private final int[] key;

        PrimaryKeySelector(LogicalType[] types, int[] key) {
            this.types = types;
            this.key = key;
        }

        @Override
        public String getKey(RowData row) {
            StringBuilder out = new StringBuilder();
            for (int i : key) {
                Object value = RowData.createFieldGetter(types[i], i).getFieldOrNull(row);
                out.append(
                                value instanceof byte[]
                                        ? java.util.Arrays.toString((byte[]) value)
                                        : value)
                        .append('\u0000');
            }
            return out.toString();
        }
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> out = new LinkedHashMap<>();
        for (ReadableMetadata m : ReadableMetadata.values()) {
            out.put(m.key(), m.type());
        }
        return out;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        this.metadataKeys = List.copyOf(metadataKeys);
        this.producedType = Objects.requireNonNull(producedDataType);
    }

    @Override
    public DynamicTableSource copy() {
        TablestoreCdcTableSource copy =
                new TablestoreCdcTableSource(configured, tableName, physicalType, primaryKey, mode);
        copy.metadataKeys = metadataKeys;
        copy.producedType = producedType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "TablestoreCdc[" + tableName + ", " + mode.code() + "]";
    }
}
