package io.tablestorecdc.spark.sink;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.settings.WriteOption;
import io.tablestorecdc.checkpoint.settings.WriteOptionValues;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The options of {@code format("tablestore")} for writing: the connection options of the {@code
 * tablestore-cdc} source and {@code write.mode}, {@code write.ignore.delete}, {@code
 * write.batch.max.rows}, {@code write.max.retries}. Parsed and validated on the driver, shipped to
 * the executors; secrets never in {@link #toString()}.
 */
@Internal
public final class TablestoreWriteOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final String WRITE_MODE = WriteOption.MODE.spark().key();
    public static final String WRITE_IGNORE_DELETE = WriteOption.IGNORE_DELETE.spark().key();
    public static final String WRITE_BATCH_MAX_ROWS = WriteOption.MAX_ROWS.spark().key();
    public static final String WRITE_MAX_RETRIES = WriteOption.MAX_RETRIES.spark().key();

    /** The write's own options, declared, in the order the docs list them. */
    public static final List<OptionSpec> DECLARED =
            List.of(
                    WriteOption.MODE.spark(),
                    WriteOption.IGNORE_DELETE.spark(),
                    WriteOption.MAX_ROWS.spark(),
                    WriteOption.MAX_RETRIES.spark());

    private final TableConnection connection;
    private final WriteMode mode;
    private final WriteSettings settings;

    private TablestoreWriteOptions(
            TableConnection connection, WriteMode mode, WriteSettings settings) {
        this.connection = connection;
        this.mode = mode;
        this.settings = settings;
    }

    /**
     * Parses and validates the options (keys are case-insensitive; others are ignored, so one map
     * may configure a read and a write).
     *
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static TablestoreWriteOptions parse(Map<String, String> options) {
        Map<String, String> lower = new HashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        OptionValues values =
                new OptionValues(lower, key -> "set it with .option(\"" + key + "\", ...)");
        Optional<TableConnection> connection = TableConnection.read(values);
        WriteOptionValues write = WriteOptionValues.read(values, WriteOption::spark);
        values.throwIfAny("format(\"tablestore\")", "docs/tablestore-table.md");
        return new TablestoreWriteOptions(connection.orElseThrow(), write.mode(), write.settings());
    }

    public TableConnection connection() {
        return connection;
    }

    public String tableName() {
        return connection.tableName();
    }

    public WriteMode mode() {
        return mode;
    }

    public WriteSettings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "TablestoreWriteOptions{"
                + connection.describe()
                + ", "
                + WRITE_MODE
                + "="
                + mode.code()
                + ", "
                + WRITE_IGNORE_DELETE
                + "="
                + settings.ignoreDelete()
                + ", "
                + WRITE_BATCH_MAX_ROWS
                + "="
                + settings.maxRows()
                + ", "
                + WRITE_MAX_RETRIES
                + "="
                + settings.maxRetries()
                + "}";
    }
}
