package io.tablestorecdc.pipeline;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableCells;
import io.tablestorecdc.checkpoint.table.TableReader;
import java.io.Serializable;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.cdc.common.configuration.Configuration;

/**
 * The {@code schema.*} options, and a table's columns at start as they say: the primary key from
 * DescribeTable, the attribute columns as declared or as the table's first rows hold them.
 */
final class SchemaSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final SchemaMode mode;
    private final int sampleRows;
    private final Map<String, LinkedHashMap<String, CellValue.Type>> declared;

    SchemaSettings(
            SchemaMode mode,
            int sampleRows,
            Map<String, LinkedHashMap<String, CellValue.Type>> declared) {
        this.mode = mode;
        this.sampleRows = sampleRows;
        this.declared = Map.copyOf(declared);
    }

    /**
     * The settings in {@code options}.
     *
     * @throws IllegalArgumentException naming a bad mode, sample size or declared column
     */
    static SchemaSettings parse(Configuration options) {
        SchemaMode mode = SchemaMode.of(options.get(PipelineOptions.SCHEMA_MODE));
        int sampleRows = options.get(PipelineOptions.SCHEMA_SAMPLE_ROWS);
        if (sampleRows < 1) {
            throw new IllegalArgumentException(
                    "Option '"
                            + PipelineOptions.SCHEMA_SAMPLE_ROWS.key()
                            + "' must be at least 1 but was "
                            + sampleRows);
        }
        Map<String, LinkedHashMap<String, CellValue.Type>> declared = new LinkedHashMap<>();
        options.toMap()
                .forEach(
                        (key, value) -> {
                            if (key.startsWith(PipelineOptions.SCHEMA_COLUMNS_PREFIX)) {
                                String table =
                                        key.substring(
                                                PipelineOptions.SCHEMA_COLUMNS_PREFIX.length());
                                declared.put(table, columns(table, value));
                            }
                        });
        if (mode != SchemaMode.DECLARED && !declared.isEmpty()) {
            throw new IllegalArgumentException(
                    "Options "
                            + PipelineOptions.SCHEMA_COLUMNS_PREFIX
                            + "<table> declare columns only with '"
                            + PipelineOptions.SCHEMA_MODE.key()
                            + "' = '"
                            + SchemaMode.DECLARED.code()
                            + "', but it is '"
                            + mode.code()
                            + "': set the mode to declared, or remove them");
        }
        return new SchemaSettings(mode, sampleRows, declared);
    }

    /** {@code name TYPE, name TYPE, ...}. */
    private static LinkedHashMap<String, CellValue.Type> columns(String table, String text) {
        LinkedHashMap<String, CellValue.Type> columns = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            String[] nameAndType = part.trim().split("\\s+");
            if (nameAndType.length != 2 || nameAndType[0].isEmpty()) {
                throw new IllegalArgumentException(
                        "Option '"
                                + PipelineOptions.SCHEMA_COLUMNS_PREFIX
                                + table
                                + "' holds '"
                                + part.trim()
                                + "', which is not a column: write 'name TYPE, name TYPE, ...',"
                                + " e.g. 'qty BIGINT, name STRING'");
            }
            columns.put(nameAndType[0], ColumnTypes.parse(table, nameAndType[0], nameAndType[1]));
        }
        return columns;
    }

    SchemaMode mode() {
        return mode;
    }

    /**
     * The columns of {@code table} at start: DescribeTable's key, then the declared columns, or
     * those its first rows hold (one GetRange of at most {@code schema.sample.rows} rows) in name
     * order, each of the type its values widen to.
     *
     * @throws IllegalArgumentException in declared mode, for a table without declared columns
     */
    TableColumns columnsOf(TablestoreEndpoint endpoint, String table) {
        if (mode == SchemaMode.DECLARED && !declared.containsKey(table)) {
            throw new IllegalArgumentException(
                    "Table '"
                            + table
                            + "' is read with '"
                            + PipelineOptions.SCHEMA_MODE.key()
                            + "' = 'declared' but has no declared columns: add '"
                            + PipelineOptions.SCHEMA_COLUMNS_PREFIX
                            + table
                            + "' = 'name TYPE, ...', or leave the table out (tables.exclude)");
        }
        try (SdkTableService service = SdkTableService.connect(endpoint, table)) {
            LinkedHashMap<String, CellValue.Type> key = new LinkedHashMap<>();
            for (PrimaryKeySchema column : service.primaryKey()) {
                key.put(column.getName(), keyType(column));
            }
            if (mode == SchemaMode.DECLARED) {
                return new TableColumns(key, declared.get(table));
            }
            Map<String, CellValue.Type> sampled = new TreeMap<>(); // columns in name order
            TableReader reader = new TableReader(service, 0);
            Iterator<Row> rows = reader.rows(reader.wholeTable(), Set.of(), sampleRows);
            while (rows.hasNext()) {
                for (Column column : rows.next().getColumns()) {
                    CellValue.Type type = TableCells.of(column.getName(), column.getValue()).type();
                    sampled.merge(column.getName(), type, ColumnTypes::widen);
                }
            }
            return new TableColumns(key, sampled);
        }
    }

    /** The columns a table found while running starts with: its declared ones, or none. */
    TableColumns attributesOfNewTable(String table) {
        return new TableColumns(Map.of(), declared.getOrDefault(table, new LinkedHashMap<>()));
    }

    private static CellValue.Type keyType(PrimaryKeySchema column) {
        return switch (column.getType()) {
            case STRING -> CellValue.Type.STRING;
            case INTEGER -> CellValue.Type.INTEGER;
            case BINARY -> CellValue.Type.BINARY;
        };
    }
}
