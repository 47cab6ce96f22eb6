package io.tablestorecdc.spark.read;

import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.table.ForwardingTableService;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.RangePage;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.checkpoint.table.TableService;
import io.tablestorecdc.spark.ExecutorClients;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/**
 * Builds, on an executor, the reader of one key range: a table client shared with the JVM's other
 * tasks (clients are not serializable, and one per split would cost its start and stop each), a
 * paged GetRange over the range, each row converted to the scan's schema.
 */
final class TableRangeReaderFactory implements PartitionReaderFactory {

    private static final long serialVersionUID = 1L;

    private final TableConnection connection;
    private final TableRowConverter converter;
    private final Set<String> columnsToGet;
    private final long maxRows;

    /**
     * @param maxRows the most rows one partition reads (a pushed limit), else {@link
     *     Long#MAX_VALUE}
     */
    TableRangeReaderFactory(
            TableConnection connection,
            TableRowConverter converter,
            Set<String> columnsToGet,
            long maxRows) {
        this.connection = connection;
        this.converter = converter;
        this.columnsToGet = Set.copyOf(columnsToGet);
        this.maxRows = maxRows;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        KeyRange range = ((KeyRangePartition) partition).keyRange();
        CountingService service =
                new CountingService(
                        ExecutorClients.table(
                                connection.tablestoreEndpoint(), connection.tableName()));
        return new RangeReader(
                service, new TableReader(service, 0).rows(range, columnsToGet, maxRows));
    }

    private final class RangeReader implements PartitionReader<InternalRow> {
        private final CountingService service;
        private final Iterator<Row> rows;
        private InternalRow current;
        private long rowsRead;

        RangeReader(CountingService service, Iterator<Row> rows) {
            this.service = service;
            this.rows = rows;
        }

        @Override
        public boolean next() {
            if (!rows.hasNext()) {
                return false;
            }
            current = converter.convert(rows.next());
            rowsRead++;
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            return TableReadMetrics.taskValues(rowsRead, service.getRanges);
        }

        @Override
        public void close() {
            service.close();
        }
    }

    /** Counts the GetRange requests of one reader (asked for on its task thread). */
    private static final class CountingService extends ForwardingTableService {
        private long getRanges;

        CountingService(TableService delegate) {
            super(delegate);
        }

        @Override
        public RangePage getRange(KeyRange range, Set<String> columns, int limit) {
            getRanges++;
            return super.getRange(range, columns, limit);
        }

        @Override
        public CompletableFuture<RangePage> getRangeAsync(
                KeyRange range, Set<String> columns, int limit) {
            getRanges++;
            return super.getRangeAsync(range, columns, limit);
        }
    }
}
