package io.tablestorecdc.checkpoint.meta;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.SyncClientInterface;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.core.ErrorCode;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.MultiRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowChange;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.condition.SingleColumnValueCondition;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TransientErrors;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@link MetaTableClient} over the Tablestore SDK's {@link SyncClient}: the only code that sends
 * meta-table requests. Whole-request retries are the SDK's (with {@link MetaRetryStrategy}); rows a
 * batch write rejects with a transient error are retried here, with backoff.
 */
@Internal
public final class SdkMetaTableClient implements MetaTableClient {

    /** The meta table's name unless configured otherwise. */
    public static final String DEFAULT_TABLE_NAME = "tablestore_cdc_meta";

    static final String PK_TUNNEL_ID = "tunnel_id";
    static final String PK_BATCH = "batch";
    static final String PK_CHANNEL_ID = "channel_id";

    private static final List<String> PRIMARY_KEY = List.of(PK_TUNNEL_ID, PK_BATCH, PK_CHANNEL_ID);
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,254}");
    private static final long RETRY_TIMEOUT_MILLIS = 30_000;
    private static final int ROW_RETRY_ATTEMPTS = 6;
    private final SyncClientInterface client;
    private final String tableName;

    private SdkMetaTableClient(SyncClientInterface client, String tableName) {
        this.client = client;
        this.tableName = requireTableName(tableName);
    }

    /** A client of the meta table {@code tableName} on the instance {@code endpoint} names. */
    public static SdkMetaTableClient connect(TablestoreEndpoint endpoint, String tableName) {
        requireTableName(tableName);
        ClientConfiguration config = new ClientConfiguration();
        config.setRetryStrategy(new MetaRetryStrategy(RETRY_TIMEOUT_MILLIS));
        SyncClient client =
                new SyncClient(
                        endpoint.endpoint(),
                        SdkCredentials.open(endpoint.credentials()),
                        endpoint.instanceName(),
                        config,
                        null);
        return new SdkMetaTableClient(client, tableName);
    }

    private static String requireTableName(String tableName) {
        if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
            throw new IllegalArgumentException(
                    "Invalid meta table name '"
                            + tableName
                            + "': use letters, digits and '_', starting with a letter or '_', at"
                            + " most 255 characters (default "
                            + DEFAULT_TABLE_NAME
                            + ")");
        }
        return tableName;
    }

    @Override
    public String tableName() {
        return tableName;
    }

    @Override
    public boolean createTableIfMissing() {
        // Asked by listing first: describing a missing table is a failed request, which the SDK
        // logs as a warning on every first start.
        Optional<List<PrimaryKeySchema>> existing =
                listed().orElse(true) ? describePrimaryKey() : Optional.empty();
        if (existing.isPresent()) {
            requireMetaSchema(existing.get());
            return false;
        }
        TableMeta meta = new TableMeta(tableName);
        PRIMARY_KEY.forEach(name -> meta.addPrimaryKeyColumn(name, PrimaryKeyType.STRING));
        try {
            client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
            return true;
        } catch (TableStoreException e) {
            if (!ErrorCode.OBJECT_ALREADY_EXIST.equals(e.getErrorCode())) {
                throw failure("create the meta table", e);
            }
            describePrimaryKey().ifPresent(this::requireMetaSchema);
            return false;
        }
    }

    /**
     * Whether the instance lists the meta table; empty when the tables cannot be listed (a RAM
     * policy may grant DescribeTable but not ListTable): then describing tells.
     */
    private Optional<Boolean> listed() {
        try {
            return Optional.of(client.listTable().getTableNames().contains(tableName));
        } catch (TableStoreException e) {
            return Optional.empty();
        } catch (ClientException e) {
            throw failure("list the tables", e);
        }
    }

    private Optional<List<PrimaryKeySchema>> describePrimaryKey() {
        try {
            return Optional.of(
                    client.describeTable(new DescribeTableRequest(tableName))
                            .getTableMeta()
                            .getPrimaryKeyList());
        } catch (TableStoreException e) {
            if (ErrorCode.OBJECT_NOT_EXIST.equals(e.getErrorCode())) {
                return Optional.empty();
            }
            throw failure("describe the meta table", e);
        } catch (ClientException e) {
            throw failure("describe the meta table", e);
        }
    }

    private void requireMetaSchema(List<PrimaryKeySchema> primaryKey) {
        List<String> found = new ArrayList<>();
        boolean allStrings = true;
        for (PrimaryKeySchema column : primaryKey) {
            found.add(column.getName() + " " + column.getType());
            allStrings &= column.getType() == PrimaryKeyType.STRING;
        }
        List<String> names = primaryKey.stream().map(PrimaryKeySchema::getName).toList();
        if (!allStrings || !names.equals(PRIMARY_KEY)) {
            throw new MetaTableException(
                    "Table "
                            + tableName
                            + " exists but its primary key is "
                            + found
                            + ", not (tunnel_id STRING, batch STRING, channel_id STRING): it is not"
                            + " a tablestore-cdc meta table. Set meta.table to another name (the"
                            + " connector creates it), or drop this table if it is a leftover.");
        }
    }

    @Override
    public PutOutcome putIfAbsent(MetaRow row) {
        RowPutChange change = putChange(row);
        change.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
        try {
            client.putRow(new PutRowRequest(change));
            return PutOutcome.WRITTEN;
        } catch (TableStoreException e) {
            if (ErrorCode.CONDITION_CHECK_FAIL.equals(e.getErrorCode())) {
                return PutOutcome.ALREADY_EXISTS;
            }
            throw failure("write row " + row.key(), e);
        } catch (ClientException e) {
            throw failure("write row " + row.key(), e);
        }
    }

    @Override
    public List<PutOutcome> putAllIfAbsent(List<MetaRow> rows) {
        requireBatchSize(rows.size());
        List<RowChange> changes = new ArrayList<>();
        for (MetaRow row : rows) {
            RowPutChange change = putChange(row);
            change.setCondition(new Condition(RowExistenceExpectation.EXPECT_NOT_EXIST));
            changes.add(change);
        }
        return writeBatch(changes);
    }

    @Override
    public boolean replaceIf(MetaRow row, String column, MetaValue expected) {
        RowPutChange change = conditionalPut(row, column, expected);
        try {
            client.putRow(new PutRowRequest(change));
            return true;
        } catch (TableStoreException e) {
            if (ErrorCode.CONDITION_CHECK_FAIL.equals(e.getErrorCode())) {
                return false;
            }
            throw failure("replace row " + row.key(), e);
        } catch (ClientException e) {
            throw failure("replace row " + row.key(), e);
        }
    }

    /** One BatchWriteRow of conditional puts; rows failed transiently are sent again. */
    @Override
    public List<Boolean> replaceAllIf(List<ConditionalReplace> replaces) {
        requireBatchSize(replaces.size());
        List<RowChange> changes = new ArrayList<>(replaces.size());
        for (ConditionalReplace r : replaces) {
            changes.add(conditionalPut(r.row(), r.column(), r.expected()));
        }
        List<Boolean> replaced = new ArrayList<>(replaces.size());
        writeBatch(changes).forEach(o -> replaced.add(o == PutOutcome.WRITTEN));
        return replaced;
    }

    /** A put of {@code row} that applies only if the row exists with {@code column} = expected. */
    private RowPutChange conditionalPut(MetaRow row, String column, MetaValue expected) {
        RowPutChange change = putChange(row);
        Condition condition = new Condition(RowExistenceExpectation.EXPECT_EXIST);
        SingleColumnValueCondition equals =
                new SingleColumnValueCondition(
                        column,
                        SingleColumnValueCondition.CompareOperator.EQUAL,
                        toColumnValue(expected));
        equals.setPassIfMissing(false);
        equals.setLatestVersionsOnly(true);
        condition.setColumnCondition(equals);
        change.setCondition(condition);
        return change;
    }

    @Override
    public void deleteAll(List<MetaRowKey> keys) {
        requireBatchSize(keys.size());
        List<RowChange> changes = new ArrayList<>();
        for (MetaRowKey key : keys) {
            RowDeleteChange change = new RowDeleteChange(tableName, primaryKey(key));
            change.setCondition(new Condition(RowExistenceExpectation.IGNORE));
            changes.add(change);
        }
        writeBatch(changes);
    }

    private static void requireBatchSize(int size) {
        if (size > MAX_BATCH_ROWS) {
            throw new IllegalArgumentException(
                    "A batch write carries at most " + MAX_BATCH_ROWS + " rows, not " + size);
        }
    }

    /**
     * Sends the changes and re-sends rows that failed transiently; a failed condition is reported
     * as {@link PutOutcome#ALREADY_EXISTS}, any other row error is thrown.
     */
    private List<PutOutcome> writeBatch(List<RowChange> changes) {
        PutOutcome[] outcomes = new PutOutcome[changes.size()];
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            pending.add(i);
        }
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                pause(attempt);
            }
            pending = sendBatch(changes, pending, outcomes, attempt + 1 >= ROW_RETRY_ATTEMPTS);
        }
        return Arrays.asList(outcomes);
    }

    private List<Integer> sendBatch(
            List<RowChange> changes, List<Integer> pending, PutOutcome[] outcomes, boolean last) {
        BatchWriteRowRequest request = new BatchWriteRowRequest();
        pending.forEach(i -> request.addRowChange(changes.get(i)));
        BatchWriteRowResponse response = call("write a batch of rows", () -> batchWrite(request));
        List<Integer> retry = new ArrayList<>();
        for (BatchWriteRowResponse.RowResult result : response.getRowStatus(tableName)) {
            int index = pending.get(result.getIndex());
            if (result.isSucceed()) {
                outcomes[index] = PutOutcome.WRITTEN;
            } else if (ErrorCode.CONDITION_CHECK_FAIL.equals(result.getError().getCode())) {
                outcomes[index] = PutOutcome.ALREADY_EXISTS;
            } else if (!last && TransientErrors.isTransient(result.getError().getCode())) {
                retry.add(index);
            } else {
                throw rowFailure(changes.get(index), result);
            }
        }
        return retry;
    }

    private BatchWriteRowResponse batchWrite(BatchWriteRowRequest request) {
        return client.batchWriteRow(request);
    }

    private MetaTableException rowFailure(RowChange change, BatchWriteRowResponse.RowResult r) {
        return new MetaTableException(
                "Meta table "
                        + tableName
                        + " rejected the write of row "
                        + key(change.getPrimaryKey())
                        + ": "
                        + r.getError().getCode()
                        + " "
                        + r.getError().getMessage()
                        + ". Check that the instance is reachable and has capacity, then restart;"
                        + " no committed progress is lost.");
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(Math.min(1000L, 20L << Math.min(attempt, 6)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetaTableException("Interrupted while retrying a meta-table write", e);
        }
    }

    @Override
    public Optional<MetaRow> get(MetaRowKey key) {
        SingleRowQueryCriteria criteria = new SingleRowQueryCriteria(tableName, primaryKey(key));
        criteria.setMaxVersions(1);
        Row row =
                call("read row " + key, () -> client.getRow(new GetRowRequest(criteria)).getRow());
        return row == null || row.isEmpty() ? Optional.empty() : Optional.of(toMetaRow(row));
    }

    /** One BatchGetRow; rows that failed transiently are asked for again, as writes are. */
    @Override
    public List<Optional<MetaRow>> getAll(List<MetaRowKey> keys) {
        if (keys.size() > MAX_BATCH_GET_ROWS) {
            throw new IllegalArgumentException(
                    "A batch read asks for at most "
                            + MAX_BATCH_GET_ROWS
                            + " rows, not "
                            + keys.size());
        }
        List<Optional<MetaRow>> rows = new ArrayList<>(Collections.nCopies(keys.size(), null));
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            pending.add(i);
        }
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                pause(attempt);
            }
            pending = readBatch(keys, pending, rows, attempt + 1 >= ROW_RETRY_ATTEMPTS);
        }
        return rows;
    }

    private List<Integer> readBatch(
            List<MetaRowKey> keys,
            List<Integer> pending,
            List<Optional<MetaRow>> rows,
            boolean last) {
        MultiRowQueryCriteria criteria = new MultiRowQueryCriteria(tableName);
        criteria.setMaxVersions(1);
        pending.forEach(i -> criteria.addRow(primaryKey(keys.get(i))));
        BatchGetRowRequest request = new BatchGetRowRequest();
        request.addMultiRowQueryCriteria(criteria);
        BatchGetRowResponse response =
                call("read a batch of rows", () -> client.batchGetRow(request));
        List<Integer> retry = new ArrayList<>();
        for (BatchGetRowResponse.RowResult result : response.getBatchGetRowResult(tableName)) {
            int index = pending.get(result.getIndex());
            if (result.isSucceed()) {
                Row row = result.getRow();
                rows.set(
                        index,
                        row == null || row.isEmpty()
                                ? Optional.empty()
                                : Optional.of(toMetaRow(row)));
            } else if (!last && TransientErrors.isTransient(result.getError().getCode())) {
                retry.add(index);
            } else {
                throw new MetaTableException(
                        "Meta table "
                                + tableName
                                + " refused the read of row "
                                + keys.get(index)
                                + ": "
                                + result.getError().getCode()
                                + " "
                                + result.getError().getMessage()
                                + ". Check that the instance is reachable and has capacity, then"
                                + " restart; no committed progress is lost.");
            }
        }
        return retry;
    }

    @Override
    public RangePage readRange(
            String tunnelId, String batch, Optional<String> fromChannelId, int limit) {
        RangeRowQueryCriteria criteria = new RangeRowQueryCriteria(tableName);
        criteria.setInclusiveStartPrimaryKey(
                primaryKey(
                        tunnelId,
                        batch,
                        fromChannelId
                                .map(PrimaryKeyValue::fromString)
                                .orElse(PrimaryKeyValue.INF_MIN)));
        criteria.setExclusiveEndPrimaryKey(primaryKey(tunnelId, batch, PrimaryKeyValue.INF_MAX));
        criteria.setMaxVersions(1);
        criteria.setLimit(Math.min(limit, MAX_RANGE_ROWS));
        GetRangeResponse response =
                call(
                        "read the rows of (" + tunnelId + ", " + batch + ")",
                        () -> client.getRange(new GetRangeRequest(criteria)));
        List<MetaRow> rows = new ArrayList<>();
        response.getRows().forEach(r -> rows.add(toMetaRow(r)));
        return new RangePage(
                rows, nextChannelId(response.getNextStartPrimaryKey(), tunnelId, batch));
    }

    /** The next start key stays inside the prefix because the range ends at its INF_MAX. */
    private static Optional<String> nextChannelId(PrimaryKey next, String tunnelId, String batch) {
        if (next == null) {
            return Optional.empty();
        }
        MetaRowKey key = key(next);
        boolean inPrefix = key.tunnelId().equals(tunnelId) && key.batch().equals(batch);
        return inPrefix ? Optional.of(key.channelId()) : Optional.empty();
    }

    private <T> T call(String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (TableStoreException | ClientException e) {
            throw failure(what, e);
        }
    }

    private MetaTableException failure(String what, RuntimeException e) {
        String code = errorCode(e).orElse("");
        String hint =
                ErrorCode.OBJECT_NOT_EXIST.equals(code)
                        ? " The meta table does not exist: let the connector create it (it does so"
                                + " on start), or check meta.table and the instance name."
                        : " Check the endpoint, instance name, credentials and network, then"
                                + " retry; no committed progress is lost.";
        String cause =
                e instanceof TableStoreException ts
                        ? code + " (request id " + ts.getRequestId() + ")"
                        : "a network error";
        return new MetaTableException(
                "Could not "
                        + what
                        + " in meta table "
                        + tableName
                        + ": "
                        + cause
                        + ": "
                        + e.getMessage()
                        + "."
                        + hint,
                e);
    }

    private static Optional<String> errorCode(RuntimeException e) {
        return e instanceof TableStoreException ts
                ? Optional.ofNullable(ts.getErrorCode())
                : Optional.empty();
    }

    private RowPutChange putChange(MetaRow row) {
        RowPutChange change = new RowPutChange(tableName, primaryKey(row.key()));
        row.columns().forEach((name, value) -> change.addColumn(name, toColumnValue(value)));
        return change;
    }

    private static ColumnValue toColumnValue(MetaValue value) {
        if (value instanceof MetaValue.Text text) {
            return ColumnValue.fromString(text.value());
        }
        if (value instanceof MetaValue.Int number) {
            return ColumnValue.fromLong(number.value());
        }
        throw new IllegalArgumentException("The meta table never writes a value of type " + value);
    }

    private static MetaValue toMetaValue(ColumnValue value) {
        switch (value.getType()) {
            case STRING:
                return MetaValue.text(value.asString());
            case INTEGER:
                return MetaValue.integer(value.asLong());
            default:
                return new MetaValue.Other(value.getType().name());
        }
    }

    private static MetaRow toMetaRow(Row row) {
        Map<String, MetaValue> columns = new TreeMap<>();
        for (Column column : row.getColumns()) {
            columns.putIfAbsent(column.getName(), toMetaValue(column.getValue()));
        }
        return new MetaRow(key(row.getPrimaryKey()), columns);
    }

    private static MetaRowKey key(PrimaryKey pk) {
        return new MetaRowKey(
                pk.getPrimaryKeyColumn(PK_TUNNEL_ID).getValue().asString(),
                pk.getPrimaryKeyColumn(PK_BATCH).getValue().asString(),
                pk.getPrimaryKeyColumn(PK_CHANNEL_ID).getValue().asString());
    }

    private static PrimaryKey primaryKey(MetaRowKey key) {
        return primaryKey(key.tunnelId(), key.batch(), PrimaryKeyValue.fromString(key.channelId()));
    }

    private static PrimaryKey primaryKey(String tunnelId, String batch, PrimaryKeyValue channel) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn(PK_TUNNEL_ID, PrimaryKeyValue.fromString(tunnelId))
                .addPrimaryKeyColumn(PK_BATCH, PrimaryKeyValue.fromString(batch))
                .addPrimaryKeyColumn(PK_CHANNEL_ID, channel)
                .build();
    }

    @Override
    public void close() {
        // Its I/O threads end even when the closing thread was interrupted (a cancelled task).
        CloseSequence.of("the meta table client")
                .then("shut down its I/O threads", client::shutdown)
                .finish();
    }
}
