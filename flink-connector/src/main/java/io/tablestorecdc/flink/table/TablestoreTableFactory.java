package io.tablestorecdc.flink.table;

import static io.tablestorecdc.flink.sink.TablestoreSinkOptions.BUFFER_FLUSH_INTERVAL;
import static io.tablestorecdc.flink.sink.TablestoreSinkOptions.BUFFER_FLUSH_MAX_ROWS;
import static io.tablestorecdc.flink.sink.TablestoreSinkOptions.IGNORE_DELETE;
import static io.tablestorecdc.flink.sink.TablestoreSinkOptions.MAX_RETRIES;
import static io.tablestorecdc.flink.sink.TablestoreSinkOptions.WRITE_MODE;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ACCESS_KEY_ID;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ACCESS_KEY_SECRET;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.CREDENTIALS_ECS_METADATA_ENDPOINT;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.CREDENTIALS_ECS_ROLE_NAME;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.CREDENTIALS_PROVIDER;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.ENDPOINT;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.INSTANCE_NAME;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.STS_TOKEN;
import static io.tablestorecdc.flink.source.config.TablestoreCdcOptions.TABLE_NAME;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.settings.WriteOption;
import io.tablestorecdc.checkpoint.settings.WriteOptionValues;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import io.tablestorecdc.checkpoint.write.TableWriteClient.KeyColumn;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.checkpoint.write.WriteRequestException;
import io.tablestorecdc.flink.sink.TableWriteClientFactory;
import io.tablestorecdc.flink.sink.TablestoreSink;
import io.tablestorecdc.flink.sink.TablestoreSinkBuilder;
import io.tablestorecdc.flink.table.tablestore.TablestoreTableSources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'tablestore'}, the one factory of the identifier: as a sink it writes a
 * changelog into a Tablestore table through {@link TablestoreSink}; as a source it is a bounded
 * scan and a lookup table ({@link TablestoreTableSources}). One table may serve as all three, its
 * options checked together. The DDL's primary key must be the table's, which is checked against
 * DescribeTable when the statement is planned.
 */
@Internal
public final class TablestoreTableFactory
        implements DynamicTableSinkFactory, DynamicTableSourceFactory {

    public static final String IDENTIFIER = "tablestore";

    private final TableWriteClientFactory clients;

    public TablestoreTableFactory() {
        this(TableWriteClientFactory.sdk());
    }

    TablestoreTableFactory(TableWriteClientFactory clients) {
        this.clients = clients;
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(ENDPOINT, INSTANCE_NAME, TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options = new HashSet<>();
        Collections.addAll(
                options,
                ACCESS_KEY_ID,
                ACCESS_KEY_SECRET,
                STS_TOKEN,
                CREDENTIALS_PROVIDER,
                CREDENTIALS_ECS_ROLE_NAME,
                CREDENTIALS_ECS_METADATA_ENDPOINT,
                WRITE_MODE,
                IGNORE_DELETE,
                BUFFER_FLUSH_MAX_ROWS,
                BUFFER_FLUSH_INTERVAL,
                MAX_RETRIES,
                FactoryUtil.SINK_PARALLELISM);
        options.addAll(TablestoreTableSources.OPTIONS);
        return options;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        return TablestoreTableSources.create(this, context);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        String subject =
                "table '"
                        + context.getObjectIdentifier().asSummaryString()
                        + "' ('connector' = '"
                        + IDENTIFIER
                        + "')";
        TableConnection connection = parse(() -> connection(context, subject));
        // The sink's own options in the core too, so that a bad value reads as it does in Spark.
        WriteOptionValues write = parse(() -> sinkOptions(context, subject));
        helper.validate();
        ReadableConfig options = helper.getOptions();
        WriteMode mode = write.mode();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        int[] primaryKey = schema.getPrimaryKeyIndexes();
        RowType rowType = (RowType) schema.toPhysicalRowDataType().getLogicalType();
        if (primaryKey.length == 0) {
            throw new ValidationException(
                    subject
                            + " has no primary key: declare the Tablestore table's key in the DDL,"
                            + " e.g. PRIMARY KEY (id) NOT ENFORCED");
        }
        RowDataRowWriteConverter converter =
                new RowDataRowWriteConverter(rowType, primaryKey, mode);
        checkPrimaryKey(subject, connection, schema);
        TablestoreSinkBuilder<RowData> builder =
                TablestoreSink.<RowData>builder()
                        .setConverter(converter)
                        .setBufferFlushMaxRows(write.settings().maxRows())
                        .setBufferFlushInterval(options.get(BUFFER_FLUSH_INTERVAL))
                        .setMaxRetries(write.settings().maxRetries())
                        .setIgnoreDelete(write.settings().ignoreDelete());
        TablestoreSink<RowData> sink =
                parse(() -> TablestoreDynamicTableSink.build(builder, connection, clients));
        return new TablestoreDynamicTableSink(
                sink, options.getOptional(FactoryUtil.SINK_PARALLELISM).orElse(null), mode);
    }

    private static TableConnection connection(Context context, String subject) {
        return TableConnection.parse(
                context.getCatalogTable().getOptions(),
                key -> "add '" + key + "' = '...' to the table's WITH clause",
                subject,
                "docs/tablestore-table.md");
    }

    private static WriteOptionValues sinkOptions(Context context, String subject) {
        OptionValues values =
                new OptionValues(
                        context.getCatalogTable().getOptions(),
                        key -> "add '" + key + "' = '...' to the table's WITH clause");
        WriteOptionValues write = WriteOptionValues.read(values, WriteOption::flink);
        values.throwIfAny(subject, "docs/tablestore-table.md");
        return write;
    }

    /** The DDL's key must be the table's: same columns, same order, types that fit. */
    private void checkPrimaryKey(
            String subject, TableConnection connection, ResolvedSchema schema) {
        List<KeyColumn> tableKey;
        try (TableWriteClient client = clients.open(connection)) {
            tableKey = client.primaryKey(connection.tableName());
        } catch (WriteRequestException e) {
            throw new ValidationException(
                    subject
                            + ": "
                            + e.getMessage()
                            + " ("
                            + e.errorCode()
                            + "); check table.name, the endpoint, the instance and the"
                            + " credentials",
                    e);
        }
        List<Column> ddlKey = new ArrayList<>();
        schema.getPrimaryKey()
                .orElseThrow()
                .getColumns()
                .forEach(name -> ddlKey.add(schema.getColumn(name).orElseThrow()));
        if (!matches(ddlKey, tableKey)) {
            throw new ValidationException(
                    subject
                            + " declares PRIMARY KEY ("
                            + ddlKey.stream()
                                    .map(c -> c.getName() + " " + c.getDataType())
                                    .collect(Collectors.joining(", "))
                            + "), but Tablestore table '"
                            + connection.tableName()
                            + "' has primary key ("
                            + tableKey.stream()
                                    .map(k -> k.name() + " " + k.type())
                                    .collect(Collectors.joining(", "))
                            + "): declare the table's key columns, in its order, with STRING,"
                            + " BIGINT or BYTES types");
        }
    }

    private static boolean matches(List<Column> ddlKey, List<KeyColumn> tableKey) {
        if (ddlKey.size() != tableKey.size()) {
            return false;
        }
        for (int i = 0; i < ddlKey.size(); i++) {
            Column column = ddlKey.get(i);
            CellValue.Type type =
                    RowDataRowWriteConverter.cellType(column.getDataType().getLogicalType())
                            .orElse(null);
            if (!column.getName().equals(tableKey.get(i).name())
                    || type != tableKey.get(i).type()) {
                return false;
            }
        }
        return true;
    }

    private static <T> T parse(java.util.function.Supplier<T> reading) {
        try {
            return reading.get();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }
}
