package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Builds a {@link TablestoreSink}. {@link #build()} checks every setting and names what is wrong
 * and how to fix it; the connection settings follow the {@code tablestore-cdc} source's rules.
 *
 * @param <IN> the sink's input type
 */
@PublicEvolving
public final class TablestoreSinkBuilder<IN> {

    private static final Map<String, String> SETTERS =
            Map.of(
                    SourceOption.ENDPOINT.key(),
                    "setEndpoint(\"https://<instance>.<region>.ots.aliyuncs.com\")",
                    SourceOption.INSTANCE_NAME.key(),
                    "setInstanceName(...)",
                    SourceOption.ACCESS_KEY_ID.key(),
                    "setCredentials(id, secret)",
                    SourceOption.ACCESS_KEY_SECRET.key(),
                    "setCredentials(id, secret)",
                    SourceOption.TABLE_NAME.key(),
                    "setTableName(...)");

    private String endpoint;
    private String instanceName;
    private String accessKeyId;
    private String accessKeySecret;
    private String stsToken;
    private String credentialsProvider;
    private String ecsRoleName;
    private String ecsMetadataEndpoint;
    private String tableName;
    private int maxRows = TablestoreSinkOptions.BUFFER_FLUSH_MAX_ROWS.defaultValue();
    private Duration flushInterval = TablestoreSinkOptions.BUFFER_FLUSH_INTERVAL.defaultValue();
    private int maxRetries = TablestoreSinkOptions.MAX_RETRIES.defaultValue();
    private boolean ignoreDelete;
    private RowWriteConverter<IN> converter;
    private TableWriteClientFactory clients = TableWriteClientFactory.sdk();
    private TableConnection connection;

    TablestoreSinkBuilder() {}

    /** The instance endpoint, {@code http(s)://host[:port]} (option {@code endpoint}). */
    public TablestoreSinkBuilder<IN> setEndpoint(String endpoint) {
        this.endpoint = endpoint;
        return this;
    }

    /** The instance name (option {@code instance.name}). */
    public TablestoreSinkBuilder<IN> setInstanceName(String instanceName) {
        this.instanceName = instanceName;
        return this;
    }

    /** A fixed access key (options {@code access.key.id}, {@code access.key.secret}). */
    public TablestoreSinkBuilder<IN> setCredentials(String accessKeyId, String accessKeySecret) {
        this.accessKeyId = accessKeyId;
        this.accessKeySecret = accessKeySecret;
        return this;
    }

    /** An STS token for the access key (option {@code sts.token}). */
    public TablestoreSinkBuilder<IN> setStsToken(String stsToken) {
        this.stsToken = stsToken;
        return this;
    }

    /**
     * Where credentials come from (option {@code credentials.provider}): {@code static}, {@code
     * env}, {@code ecs-ram-role} or a provider class name.
     */
    public TablestoreSinkBuilder<IN> setCredentialsProvider(String credentialsProvider) {
        this.credentialsProvider = credentialsProvider;
        return this;
    }

    /** With {@code ecs-ram-role}: the role (null for the instance's) and metadata endpoint. */
    public TablestoreSinkBuilder<IN> setEcsRamRole(String roleName, String metadataEndpoint) {
        this.ecsRoleName = roleName;
        this.ecsMetadataEndpoint = metadataEndpoint;
        return this;
    }

    /** The table to write (option {@code table.name}). */
    public TablestoreSinkBuilder<IN> setTableName(String tableName) {
        this.tableName = tableName;
        return this;
    }

    /** Keys per BatchWriteRow request, 1 to 200 (option {@code sink.buffer-flush.max-rows}). */
    public TablestoreSinkBuilder<IN> setBufferFlushMaxRows(int maxRows) {
        this.maxRows = maxRows;
        return this;
    }

    /**
     * The longest a change waits in the buffer (option {@code sink.buffer-flush.interval}); zero to
     * write only when the buffer is full and at checkpoints.
     */
    public TablestoreSinkBuilder<IN> setBufferFlushInterval(Duration flushInterval) {
        this.flushInterval = flushInterval;
        return this;
    }

    /** Retries of rows refused for a passing reason (option {@code sink.max-retries}). */
    public TablestoreSinkBuilder<IN> setMaxRetries(int maxRetries) {
        this.maxRetries = maxRetries;
        return this;
    }

    /** Drop row deletions instead of writing them (option {@code sink.ignore-delete}). */
    public TablestoreSinkBuilder<IN> setIgnoreDelete(boolean ignoreDelete) {
        this.ignoreDelete = ignoreDelete;
        return this;
    }

    /** How an element becomes a row change, e.g. {@link RowWriteConverter#changeRecords()}. */
    public TablestoreSinkBuilder<IN> setConverter(RowWriteConverter<IN> converter) {
        this.converter = converter;
        return this;
    }

    /**
     * The connection as the SQL factory has read and checked it, instead of the connection setters,
     * and the client each writer opens.
     */
    @Internal
    public TablestoreSinkBuilder<IN> withConnection(
            TableConnection connection, TableWriteClientFactory clients) {
        this.connection = connection;
        this.clients = clients;
        return this;
    }

    /**
     * The sink.
     *
     * @throws IllegalArgumentException listing every wrong or missing setting with its fix
     */
    public TablestoreSink<IN> build() {
        List<String> problems = new ArrayList<>();
        TableConnection connection = this.connection;
        try {
            if (connection == null) {
                connection =
                        TableConnection.parse(
                                connectionOptions(),
                                key -> "call " + SETTERS.get(key) + " on the builder",
                                "the Tablestore sink",
                                "docs/tablestore-table.md");
            }
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        problems.addAll(settingProblems());
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        WriteSettings settings =
                WriteSettings.defaults()
                        .withMaxRows(maxRows)
                        .withMaxRetries(maxRetries)
                        .withIgnoreDelete(ignoreDelete);
        return new TablestoreSink<>(connection, settings, flushInterval, converter, clients);
    }

    private List<String> settingProblems() {
        List<String> problems = new ArrayList<>();
        if (converter == null) {
            problems.add(
                    "No converter set: call setConverter(...), e.g. with"
                            + " RowWriteConverter.changeRecords() for the tablestore-cdc source's"
                            + " ChangeRecords");
        }
        if (maxRows < 1 || maxRows > WriteSettings.MAX_ROWS_LIMIT) {
            problems.add(
                    "setBufferFlushMaxRows("
                            + maxRows
                            + "): use 1 to "
                            + WriteSettings.MAX_ROWS_LIMIT
                            + ", the service's limit of rows in one BatchWriteRow request");
        }
        if (flushInterval == null || flushInterval.isNegative()) {
            problems.add(
                    "setBufferFlushInterval("
                            + flushInterval
                            + "): use a duration of zero or more (zero writes only when the"
                            + " buffer is full and at checkpoints)");
        }
        if (maxRetries < 0) {
            problems.add("setMaxRetries(" + maxRetries + "): use 0 or more");
        }
        return problems;
    }

    private Map<String, String> connectionOptions() {
        Map<String, String> options = new HashMap<>();
        put(options, SourceOption.ENDPOINT, endpoint);
        put(options, SourceOption.INSTANCE_NAME, instanceName);
        put(options, SourceOption.ACCESS_KEY_ID, accessKeyId);
        put(options, SourceOption.ACCESS_KEY_SECRET, accessKeySecret);
        put(options, SourceOption.STS_TOKEN, stsToken);
        put(options, SourceOption.CREDENTIALS_PROVIDER, credentialsProvider);
        put(options, SourceOption.CREDENTIALS_ECS_ROLE_NAME, ecsRoleName);
        put(options, SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT, ecsMetadataEndpoint);
        put(options, SourceOption.TABLE_NAME, tableName);
        return options;
    }

    private static void put(Map<String, String> options, SourceOption option, String value) {
        if (value != null) {
            options.put(option.key(), value);
        }
    }
}
