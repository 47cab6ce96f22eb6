package io.tablestorecdc.flink.table;

import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ACCESS_KEY_ID;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ACCESS_KEY_SECRET;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.DISCOVERY_INTERVAL;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ENDPOINT;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.HEARTBEAT_INTERVAL;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.HEARTBEAT_TIMEOUT;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.IGNORE_DELETE;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.INSTANCE_NAME;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.META_TABLE;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.SCAN_BOUNDED_STOP_AT;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.SKIP_INVALID_DATA;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.STS_TOKEN;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.TABLE_NAME;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.TUNNEL_CREATE;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.TUNNEL_NAME;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.TUNNEL_START;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableService;
import io.tablestorecdc.flink.scan.TableServiceFactory;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import io.tablestorecdc.flink.source.config.DeclaredOptions;
import io.tablestorecdc.flink.source.config.TablestoreCdcOptions;
import io.tablestorecdc.flink.source.deserializer.ValuesField;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/** {@code 'connector' = 'tablestore-cdc'}: the SQL / Table API face of the source. */
@Internal
public final class TablestoreCdcTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "tablestore-cdc";

    /** The declaration of {@link #CHANGELOG_MODE}. */
    public static final OptionSpec CHANGELOG_MODE_SPEC =
            OptionSpec.key("changelog.mode")
                    .enumType(ChangelogModeOption.class)
                    .defaultValue(ChangelogModeOption.UPSERT.toString())
                    .description(
                            "SQL only. `upsert`: INSERT / UPDATE_AFTER / DELETE keyed by the"
                                    + " PRIMARY KEY the DDL declares, partial updates merged into"
                                    + " full rows; `insert-only`: every change is an INSERT row;"
                                    + " `all`: INSERT / UPDATE_BEFORE / UPDATE_AFTER / DELETE from"
                                    + " the before-images of the table's stream (its origin columns"
                                    + " must hold every column read), no state kept. See"
                                    + " [Changelog mapping (SQL)](#changelog-mapping-sql).");

    public static final ConfigOption<ChangelogModeOption> CHANGELOG_MODE =
            DeclaredOptions.choice(CHANGELOG_MODE_SPEC, ChangelogModeOption.class);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        // table.name or table.pattern: the core says which is missing, naming both.
        return Set.of(ENDPOINT, INSTANCE_NAME, TUNNEL_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                ACCESS_KEY_ID,
                ACCESS_KEY_SECRET,
                STS_TOKEN,
                TablestoreCdcOptions.CREDENTIALS_PROVIDER,
                TablestoreCdcOptions.CREDENTIALS_ECS_ROLE_NAME,
                TablestoreCdcOptions.CREDENTIALS_ECS_METADATA_ENDPOINT,
                TABLE_NAME,
                TablestoreCdcOptions.TABLE_PATTERN,
                TablestoreCdcOptions.TABLE_EXCLUDE,
                TablestoreCdcOptions.TABLE_DISCOVERY_INTERVAL,
                TablestoreCdcOptions.ON_DROPPED_TABLE,
                TUNNEL_CREATE,
                TUNNEL_START,
                META_TABLE,
                SKIP_INVALID_DATA,
                IGNORE_DELETE,
                TablestoreCdcOptions.ON_SERVER_AHEAD,
                TablestoreCdcOptions.META_FULL_SNAPSHOT_EVERY,
                TablestoreCdcOptions.META_RETENTION_BATCHES,
                DISCOVERY_INTERVAL,
                HEARTBEAT_INTERVAL,
                HEARTBEAT_TIMEOUT,
                SCAN_BOUNDED_STOP_AT,
                CHANGELOG_MODE);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // The shared options first, in the core, so that a bad value reads as it does in Spark.
        SourceSettings settings = parse(() -> sharedSettings(context));
        String tables =
                settings.selection().single()
                        ? settings.tableName()
                        : settings.selection().describe();
        ChangelogModeOption mode =
                parse(
                        () ->
                                ChangelogModeOption.fromCode(
                                        context.getCatalogTable()
                                                .getOptions()
                                                .getOrDefault(
                                                        CHANGELOG_MODE.key(),
                                                        CHANGELOG_MODE_SPEC
                                                                .defaultValue()
                                                                .orElseThrow())));
        helper.validate();
        ReadableConfig options = helper.getOptions();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        if (!settings.selection().single() && mode != ChangelogModeOption.INSERT_ONLY) {
            throw new ValidationException(
                    "Table '"
                            + context.getObjectIdentifier().asSummaryString()
                            + "' reads several Tablestore tables ("
                            + tables
                            + ") with 'changelog.mode' = '"
                            + mode.code()
                            + "', which keys rows by the PRIMARY KEY alone: rows of two tables with"
                            + " the same key would update each other. Set 'changelog.mode' ="
                            + " 'insert-only' (every change a row; add a column METADATA FROM"
                            + " 'table_name' to tell the tables apart), or read one table per"
                            + " source table.");
        }
        int[] primaryKey = schema.getPrimaryKeyIndexes();
        if (mode == ChangelogModeOption.UPSERT && primaryKey.length == 0) {
            throw new ValidationException(
                    "Table '"
                            + context.getObjectIdentifier().asSummaryString()
                            + "' uses 'changelog.mode' = 'upsert' (the default), which needs the"
                            + " table's primary key: add PRIMARY KEY (<key columns>) NOT ENFORCED"
                            + " to the DDL, or set 'changelog.mode' = 'insert-only'");
        }
        DataType physical = schema.toPhysicalRowDataType();
        if (mode == ChangelogModeOption.ALL) {
            for (String table : settings.selectedTables(() -> listTables(context, settings))) {
                checkBeforeImages(
                        context, settings.forTable(table), (RowType) physical.getLogicalType());
            }
        }
        SourceOptions configured = parse(() -> new SourceOptions(settings, options));
        validateEagerly(configured, tables, physical, mode);
        return new TablestoreCdcTableSource(configured, tables, physical, primaryKey, mode);
    }

    private static List<String> listTables(Context context, SourceSettings settings) {
        try {
            return SdkTableService.listTables(settings.tablestoreEndpoint());
        } catch (RuntimeException e) {
            throw new ValidationException(
                    "Table '"
                            + context.getObjectIdentifier().asSummaryString()
                            + "' reads the tables matching "
                            + settings.selection().describe()
                            + ", which are listed when the query is planned, and listing them"
                            + " failed: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Mode {@code all} builds UPDATE_BEFORE and DELETE rows from the before-images the table's
     * stream carries: every attribute column the DDL reads must be one of the stream's origin
     * columns (DescribeTable), or those rows would lack it.
     */
    private static void checkBeforeImages(
            Context context, SourceSettings settings, RowType physical) {
        Set<String> origin;
        Set<String> key = new HashSet<>();
        try (TableService table = TableServiceFactory.sdk(settings.connection()).open()) {
            origin = table.streamOriginColumns();
            table.primaryKey().forEach(k -> key.add(k.getName()));
        } catch (RuntimeException e) {
            throw new ValidationException(
                    "Table '"
                            + context.getObjectIdentifier().asSummaryString()
                            + "' uses 'changelog.mode' = 'all', which reads the stream settings of"
                            + " Tablestore table '"
                            + settings.tableName()
                            + "' when the query is planned, and DescribeTable failed: "
                            + e.getMessage()
                            + "; check table.name, the endpoint, the instance and the credentials",
                    e);
        }
        List<String> missing = new ArrayList<>();
        for (String name : physical.getFieldNames()) {
            if (!key.contains(name) && !origin.contains(name) && !name.equals(ValuesField.NAME)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new ValidationException(
                    "Table '"
                            + context.getObjectIdentifier().asSummaryString()
                            + "' uses 'changelog.mode' = 'all', which builds UPDATE_BEFORE and"
                            + " DELETE rows from the before-images of the table's stream, but the"
                            + " stream of Tablestore table '"
                            + settings.tableName()
                            + "' carries no before-image of "
                            + missing
                            + (origin.isEmpty()
                                    ? " (it names no origin columns)"
                                    : " (its origin columns are " + new TreeSet<>(origin) + ")")
                            + ". Give the table's stream these origin columns (UpdateTable with a"
                            + " StreamSpecification whose addOriginColumnsToGet names them; the"
                            + " changes after it carry them), or use"
                            + " 'changelog.mode' = 'upsert', which needs no before-image.");
        }
    }

    private static SourceSettings sharedSettings(Context context) {
        return SourceSettings.parse(
                context.getCatalogTable().getOptions(),
                key -> "add '" + key + "' = '...' to the table's WITH clause",
                "table '"
                        + context.getObjectIdentifier().asSummaryString()
                        + "' ('connector' = '"
                        + IDENTIFIER
                        + "')",
                "docs/flink.md");
    }

    /** Fails at planning, not at run time, on a bad option value or an unsupported column type. */
    private static void validateEagerly(
            SourceOptions configured,
            String tableName,
            DataType physical,
            ChangelogModeOption mode) {
        RowType rowType = (RowType) physical.getLogicalType();
        parse(
                () ->
                        configured.apply(
                                TablestoreCdcSource.<RowData>builder()
                                        .setDeserializer(
                                                new ChangeRowDeserializer(
                                                        tableName,
                                                        rowType,
                                                        List.of(),
                                                        mode,
                                                        TypeInformation.of(RowData.class)))));
    }

    private static <T> T parse(Supplier<T> step) {
        try {
            return step.get();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }

    /** The table options, applied to a source builder (serializable: no catalog objects). */
    private static final class SourceOptions
            implements Function<TablestoreCdcSourceBuilder<RowData>, TablestoreCdcSource<RowData>>,
                    Serializable {
        private static final long serialVersionUID = 1L;
        private final SourceSettings settings;
        private final java.time.Duration discovery;
        private final java.time.Duration heartbeat;
        private final java.time.Duration heartbeatTimeout;
        private final java.time.Instant stopAt;

        SourceOptions(SourceSettings settings, ReadableConfig options) {
            this.settings = settings;
            discovery = options.get(DISCOVERY_INTERVAL);
            heartbeat = options.get(HEARTBEAT_INTERVAL);
            heartbeatTimeout = options.get(HEARTBEAT_TIMEOUT);
            stopAt =
                    options.getOptional(SCAN_BOUNDED_STOP_AT)
                            .map(TablestoreCdcOptions::parseStopAt)
                            .orElse(null);
        }

        @Override
        public TablestoreCdcSource<RowData> apply(TablestoreCdcSourceBuilder<RowData> builder) {
            return builder.setSettings(settings)
                    .setDiscoveryInterval(discovery)
                    .setHeartbeatInterval(heartbeat)
                    .setHeartbeatTimeout(heartbeatTimeout)
                    .setStopAt(stopAt)
                    .build();
        }

        @Override
        public String toString() {
            return "SourceOptions{"
                    + settings.selection().describe()
                    + ", tunnel="
                    + settings.tunnelName()
                    + ", accessKeySecret=******}";
        }
    }
}
