package io.tablestorecdc.spark.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.network.util.JavaUtils;

/**
 * The options of {@code spark.read.format("tablestore")}: the connection options (as for writing)
 * and {@code read.split.size}. Parsed and validated on the driver, shipped to the executors;
 * secrets never in {@link #toString()}.
 */
@Internal
public final class TablestoreReadOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The most rows {@code read.schema.sample.rows} may sample. */
    public static final long MAX_SAMPLE_ROWS = 1_000_000;

    public static final OptionSpec READ_SPLIT_SIZE_SPEC =
            OptionSpec.key("read.split.size")
                    .memorySizeType()
                    .defaultValue("100m")
                    .description(
                            "About how much table data one Spark partition reads: bytes (`5000`)"
                                    + " or with a unit (`64m`, `1g`). 100 MB is"
                                    + " ComputeSplitsBySize's unit; other sizes are sent in bytes,"
                                    + " which the service must support.");

    static final OptionSpec READ_SCHEMA_SAMPLE_ROWS_SPEC =
            OptionSpec.key("read.schema.sample.rows")
                    .longType(0, MAX_SAMPLE_ROWS)
                    .defaultValue("0")
                    .description(
                            "Without `.schema(...)`: infer typed attribute columns from this many"
                                    + " rows, from the table's first key on; `0` reads the"
                                    + " attributes as the `_values` map.");

    /** The read's own options, declared, in the order the docs list them. */
    public static final List<OptionSpec> DECLARED =
            List.of(READ_SPLIT_SIZE_SPEC, READ_SCHEMA_SAMPLE_ROWS_SPEC);

    /** About how many bytes of table data one Spark partition reads. */
    public static final String READ_SPLIT_SIZE = READ_SPLIT_SIZE_SPEC.key();

    /**
     * Without a user schema: how many rows, from the table's first key on, to infer typed attribute
     * columns from; 0 reads the attributes as the {@code _values} map.
     */
    public static final String READ_SCHEMA_SAMPLE_ROWS = READ_SCHEMA_SAMPLE_ROWS_SPEC.key();

    /**
     * 100 MB: the unit of ComputeSplitsBySize. Every Tablestore version takes sizes in this unit; a
     * size that is not a multiple of it needs a service that reads the size in bytes.
     */
    public static final long DEFAULT_SPLIT_SIZE = 100L * 1024 * 1024;

    private final TableConnection connection;
    private final long splitSize;
    private final long sampleRows;

    private TablestoreReadOptions(TableConnection connection, long splitSize, long sampleRows) {
        this.connection = connection;
        this.splitSize = splitSize;
        this.sampleRows = sampleRows;
    }

    /**
     * Parses and validates the options (keys are case-insensitive; others are ignored, so one map
     * may configure a read and a write).
     *
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static TablestoreReadOptions parse(Map<String, String> options) {
        Map<String, String> lower = new HashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        OptionValues values =
                new OptionValues(lower, key -> "set it with .option(\"" + key + "\", ...)");
        Optional<TableConnection> connection = TableConnection.read(values);
        long splitSize =
                values.parsed(
                        READ_SPLIT_SIZE, DEFAULT_SPLIT_SIZE, TablestoreReadOptions::parseSize);
        long sampleRows = values.wholeNumber(READ_SCHEMA_SAMPLE_ROWS_SPEC, 0);
        values.throwIfAny("format(\"tablestore\")", "docs/tablestore-table.md");
        return new TablestoreReadOptions(connection.orElseThrow(), splitSize, sampleRows);
    }

    private static long parseSize(String text) {
        long bytes;
        try {
            bytes = JavaUtils.byteStringAsBytes(text);
        } catch (RuntimeException e) {
            bytes = -1;
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException(
                    OptionValues.invalidValue(
                            READ_SPLIT_SIZE,
                            text,
                            "use a positive size in bytes, or with a unit such as 64m, 100m or"
                                    + " 1g (default 100m)"));
        }
        return bytes;
    }

    public TableConnection connection() {
        return connection;
    }

    public String tableName() {
        return connection.tableName();
    }

    /** {@code read.split.size} in bytes. */
    public long splitSize() {
        return splitSize;
    }

    /** {@code read.schema.sample.rows}; 0 when the attributes read as a map. */
    public long sampleRows() {
        return sampleRows;
    }

    /** A split size for plans: {@code 100 MB}, {@code 512 KB}, {@code 1000 bytes}. */
    static String describeSize(long bytes) {
        if (bytes % (1024L * 1024) == 0) {
            return bytes / (1024L * 1024) + " MB";
        }
        if (bytes % 1024 == 0) {
            return bytes / 1024 + " KB";
        }
        return bytes + " bytes";
    }

    @Override
    public String toString() {
        return "TablestoreReadOptions{"
                + connection.describe()
                + ", "
                + READ_SPLIT_SIZE
                + "="
                + splitSize
                + ", "
                + READ_SCHEMA_SAMPLE_ROWS
                + "="
                + sampleRows
                + "}";
    }
}
