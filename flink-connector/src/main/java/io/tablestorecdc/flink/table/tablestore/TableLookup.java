package io.tablestorecdc.flink.table.tablestore;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.checkpoint.table.TableService;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * What one lookup join asks of the table: the joined key columns, either the whole primary key
 * (rows read with BatchGetRow) or a leading part of it (rows read with GetRange), and how rows
 * become Flink rows. Opened once per task.
 */
@Internal
final class TableLookup implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The metric counting the service requests lookups send. */
    static final String LOOKUP_REQUESTS = "lookupRequests";

    private final TableConnection settings;
    private final RowConverter converter;
    private final List<String> primaryKeyNames;
    private final int[] keyFields;
    private final int maxRetries;
    private transient TableService service;
    private transient TableReader reader;
    private transient Counter requests;

    /**
     * @param keyFields the physical field of each primary-key column the join names, in key order
     */
    TableLookup(
            TableConnection settings,
            RowType rowType,
            List<String> primaryKeyNames,
            int[] keyFields,
            int maxRetries) {
        this.settings = settings;
        this.converter = new RowConverter(rowType);
        this.primaryKeyNames = List.copyOf(primaryKeyNames);
        this.keyFields = keyFields.clone();
        this.maxRetries = maxRetries;
    }

    boolean fullKey() {
        return keyFields.length == primaryKeyNames.size();
    }

    void open(MetricGroup metrics) {
        service = SdkTableService.connect(settings.tablestoreEndpoint(), settings.tableName());
        reader = new TableReader(service, maxRetries);
        // Lookups run on several threads at once (the async function's readers).
        requests = metrics.counter(LOOKUP_REQUESTS, new ThreadSafeSimpleCounter());
    }

    void close() {
        if (service != null) {
            service.close();
        }
    }

    /** The rows of one key row (the join's key columns, in key order). */
    Collection<RowData> lookup(RowData key) {
        return fullKey() ? lookupAll(List.of(key)).get(0) : lookupPrefix(key);
    }

    /** The rows of full keys, read in BatchGetRow requests of at most 100 keys. */
    List<Collection<RowData>> lookupAll(List<RowData> keys) {
        List<PrimaryKey> primaryKeys = new ArrayList<>(keys.size());
        for (RowData key : keys) {
            PrimaryKeyBuilder builder = PrimaryKeyBuilder.createPrimaryKeyBuilder();
            List<PrimaryKeyValue> values = values(key);
            for (int i = 0; i < values.size(); i++) {
                builder.addPrimaryKeyColumn(
                        new PrimaryKeyColumn(primaryKeyNames.get(i), values.get(i)));
            }
            primaryKeys.add(builder.build());
        }
        requests.inc(
                (keys.size() + TableReader.MAX_KEYS_PER_BATCH - 1)
                        / TableReader.MAX_KEYS_PER_BATCH);
        List<Collection<RowData>> out = new ArrayList<>(keys.size());
        for (Optional<Row> row : reader.get(primaryKeys, Set.of())) {
            out.add(row.map(r -> List.of(converter.toRowData(r))).orElse(List.of()));
        }
        return out;
    }

    private Collection<RowData> lookupPrefix(RowData key) {
        requests.inc();
        List<RowData> out = new ArrayList<>();
        for (Row row : reader.getByPrefix(values(key), Set.of())) {
            out.add(converter.toRowData(row));
        }
        return out;
    }

    private List<PrimaryKeyValue> values(RowData key) {
        List<PrimaryKeyValue> values = new ArrayList<>(keyFields.length);
        for (int i = 0; i < keyFields.length; i++) {
            values.add(converter.keyValue(key, i, keyFields[i]));
        }
        return values;
    }
}
