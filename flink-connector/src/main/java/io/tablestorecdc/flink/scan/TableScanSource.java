package io.tablestorecdc.flink.scan;

import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyBoundsCodec;
import io.tablestorecdc.flink.scan.enumerator.TableScanEnumerator;
import io.tablestorecdc.flink.scan.enumerator.TableScanEnumeratorState;
import io.tablestorecdc.flink.scan.enumerator.TableScanEnumeratorStateSerializer;
import io.tablestorecdc.flink.scan.reader.TableScanRecordEmitter;
import io.tablestorecdc.flink.scan.reader.TableScanSourceReader;
import io.tablestorecdc.flink.scan.reader.TableScanSplitReader;
import io.tablestorecdc.flink.scan.split.TableScanSplit;
import io.tablestorecdc.flink.scan.split.TableScanSplitSerializer;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * A bounded read of a Tablestore table as it is now: splits of about {@code splitBytes} each
 * (ComputeSplitsBySize, cut to the key bounds), each read with paged GetRange. A restore resumes
 * every split after its last emitted row, so with checkpointing each row is emitted once.
 */
@Internal
public final class TableScanSource
        implements Source<RowData, TableScanSplit, TableScanEnumeratorState>,
                ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final TableServiceFactory services;
    private final byte[] bounds;
    private final long splitBytes;
    private final Set<String> columns;
    private final TableRowConverter converter;
    private final TypeInformation<RowData> producedType;

    /**
     * @param bounds the primary-key range the scan is limited to
     * @param splitBytes the data size a split should hold, as ComputeSplitsBySize takes it
     * @param columns the columns GetRange returns ({@code columnsToGet}); empty for all
     */
    public TableScanSource(
            TableServiceFactory services,
            KeyBounds bounds,
            long splitBytes,
            Set<String> columns,
            TableRowConverter converter,
            TypeInformation<RowData> producedType) {
        if (splitBytes <= 0) {
            throw new IllegalArgumentException("A split size must be positive, got " + splitBytes);
        }
        this.services = Objects.requireNonNull(services, "services");
        this.bounds = KeyBoundsCodec.encode(bounds);
        this.splitBytes = splitBytes;
        this.columns = Set.copyOf(columns);
        this.converter = Objects.requireNonNull(converter, "converter");
        this.producedType = Objects.requireNonNull(producedType, "producedType");
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RowData, TableScanSplit> createReader(SourceReaderContext context) {
        return new TableScanSourceReader(
                () -> new TableScanSplitReader(services, columns),
                new TableScanRecordEmitter(converter),
                context.getConfiguration(),
                context);
    }

    @Override
    public SplitEnumerator<TableScanSplit, TableScanEnumeratorState> createEnumerator(
            SplitEnumeratorContext<TableScanSplit> context) {
        return new TableScanEnumerator(
                context, services, splitBytes, KeyBoundsCodec.decode(bounds), Optional.empty());
    }

    @Override
    public SplitEnumerator<TableScanSplit, TableScanEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<TableScanSplit> context, TableScanEnumeratorState state) {
        return new TableScanEnumerator(
                context, services, splitBytes, KeyBoundsCodec.decode(bounds), Optional.of(state));
    }

    @Override
    public SimpleVersionedSerializer<TableScanSplit> getSplitSerializer() {
        return new TableScanSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<TableScanEnumeratorState> getEnumeratorCheckpointSerializer() {
        return new TableScanEnumeratorStateSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    @Override
    public String toString() {
        return "TableScanSource{"
                + services
                + ", splitBytes="
                + splitBytes
                + ", columns="
                + columns
                + "}";
    }
}
