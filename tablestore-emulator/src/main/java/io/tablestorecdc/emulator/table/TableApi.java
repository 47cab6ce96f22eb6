package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferRow;
import com.alicloud.openservices.tablestore.core.protocol.Search;
import com.alicloud.openservices.tablestore.core.protocol.timeseries.Timeseries;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import com.aliyun.ots.thirdparty.com.google.protobuf.MessageLite;
import io.tablestorecdc.emulator.server.ActionHandler;
import io.tablestorecdc.emulator.server.EmulatorError;
import io.tablestorecdc.emulator.server.EmulatorServer;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Serves the table API actions (CreateTable ... BatchWriteRow) over a {@link TableStore}. */
public final class TableApi implements ActionHandler {

    /** The actions this handler serves. */
    public static final List<String> ACTIONS =
            List.of(
                    "CreateTable",
                    "DescribeTable",
                    "UpdateTable",
                    "ListTable",
                    "ListSearchIndex",
                    "ListTimeseriesTable",
                    "DeleteTable",
                    "PutRow",
                    "GetRow",
                    "UpdateRow",
                    "DeleteRow",
                    "GetRange",
                    "BatchWriteRow",
                    "BatchGetRow",
                    "ComputeSplitPointsBySize");

    private final TableStore store;
    private final boolean repeatedKeysAccepted;

    public TableApi(TableStore store) {
        this(store, false);
    }

    /**
     * @param repeatedKeysAccepted whether a BatchWriteRow may name one row twice (applied in order)
     *     instead of being refused as a whole
     */
    public TableApi(TableStore store, boolean repeatedKeysAccepted) {
        this.store = store;
        this.repeatedKeysAccepted = repeatedKeysAccepted;
    }

    /** Registers this handler for every table action. */
    public void registerWith(EmulatorServer server) {
        ACTIONS.forEach(action -> server.register(action, this));
    }

    @Override
    public byte[] handle(String action, byte[] body) throws EmulatorError {
        try {
            return dispatch(action, body).toByteArray();
        } catch (InvalidProtocolBufferException e) {
            throw EmulatorError.parameterInvalid(
                    "The "
                            + action
                            + " request is not a valid protobuf message: "
                            + e.getMessage());
        }
    }

    private MessageLite dispatch(String action, byte[] body)
            throws EmulatorError, InvalidProtocolBufferException {
        switch (action) {
            case "CreateTable":
                return createTable(OtsInternalApi.CreateTableRequest.parseFrom(body));
            case "DescribeTable":
                return TableMetaCodec.describe(
                        store.describeTable(
                                named(
                                        OtsInternalApi.DescribeTableRequest.parseFrom(body)
                                                .getTableName())));
            case "UpdateTable":
                return updateTable(OtsInternalApi.UpdateTableRequest.parseFrom(body));
            case "ListTable":
                return OtsInternalApi.ListTableResponse.newBuilder()
                        .addAllTableNames(store.listTables())
                        .build();
            case "ListSearchIndex":
                // No search indexes are served, so every table has none: an empty list (tools
                // that clean up an instance list them table by table).
                return Search.ListSearchIndexResponse.getDefaultInstance();
            case "ListTimeseriesTable":
                // No time-series tables are served: the instance holds none.
                return Timeseries.ListTimeseriesTableResponse.getDefaultInstance();
            case "DeleteTable":
                store.deleteTable(
                        named(OtsInternalApi.DeleteTableRequest.parseFrom(body).getTableName()));
                return OtsInternalApi.DeleteTableResponse.getDefaultInstance();
            case "PutRow":
                return putRow(OtsInternalApi.PutRowRequest.parseFrom(body));
            case "UpdateRow":
                return updateRow(OtsInternalApi.UpdateRowRequest.parseFrom(body));
            case "DeleteRow":
                return deleteRow(OtsInternalApi.DeleteRowRequest.parseFrom(body));
            case "GetRow":
                return getRow(OtsInternalApi.GetRowRequest.parseFrom(body));
            case "GetRange":
                return getRange(OtsInternalApi.GetRangeRequest.parseFrom(body));
            case "BatchWriteRow":
                return batchWriteRow(OtsInternalApi.BatchWriteRowRequest.parseFrom(body));
            case "BatchGetRow":
                return batchGetRow(OtsInternalApi.BatchGetRowRequest.parseFrom(body));
            case "ComputeSplitPointsBySize":
                return computeSplitPoints(
                        OtsInternalApi.ComputeSplitPointsBySizeRequest.parseFrom(body));
            default:
                throw new EmulatorError(
                        "OTSUnsupportOperation",
                        400,
                        "The emulator does not serve the action '" + action + "'");
        }
    }

    /** A table name the request gives, checked against the service's naming rules. */
    private static String named(String table) throws EmulatorError {
        Limits.tableName(table);
        return table;
    }

    private MessageLite updateTable(OtsInternalApi.UpdateTableRequest request)
            throws EmulatorError {
        named(request.getTableName());
        if (!request.hasTableOptions()
                && !request.hasStreamSpec()
                && !request.hasReservedThroughput()) {
            throw EmulatorError.parameterInvalid(
                    "The UpdateTable request changes nothing: give table options, a stream"
                            + " specification or a reserved throughput");
        }
        if (request.hasStreamSpec()
                && request.getStreamSpec().getEnableStream()
                && !request.getStreamSpec().hasExpirationTime()) {
            throw EmulatorError.parameterInvalid(
                    "The stream specification enables the stream without an expiration time:"
                            + " give it one, in hours");
        }
        TableDescription updated =
                store.updateTable(
                        request.getTableName(), table -> TableMetaCodec.updated(table, request));
        return TableMetaCodec.updateResponse(updated);
    }

    private MessageLite createTable(OtsInternalApi.CreateTableRequest request)
            throws EmulatorError {
        named(request.getTableMeta().getTableName());
        Partitions.check(request);
        long nowMicros = System.currentTimeMillis() * 1000;
        store.createTable(TableMetaCodec.fromCreate(request, nowMicros));
        return OtsInternalApi.CreateTableResponse.getDefaultInstance();
    }

    private MessageLite putRow(OtsInternalApi.PutRowRequest request) throws EmulatorError {
        named(request.getTableName());
        RowWrite write =
                decodeWrite(
                        OtsInternalApi.OperationType.PUT,
                        request.getRow(),
                        request.getCondition(),
                        request.getReturnContent());
        Limits.requestSize("PutRow", write.primaryKey(), write.cells());
        Optional<Row> returned = store.write(request.getTableName(), write);
        return OtsInternalApi.PutRowResponse.newBuilder()
                .setConsumed(consumed(CapacityUnits.ofWrite(write)))
                .setRow(PlainBufferCodec.encodeRow(returned))
                .build();
    }

    private MessageLite updateRow(OtsInternalApi.UpdateRowRequest request) throws EmulatorError {
        named(request.getTableName());
        RowWrite write =
                decodeWrite(
                        OtsInternalApi.OperationType.UPDATE,
                        request.getRowChange(),
                        request.getCondition(),
                        request.getReturnContent());
        Limits.requestSize("UpdateRow", write.primaryKey(), write.cells());
        Optional<Row> returned = store.write(request.getTableName(), write);
        return OtsInternalApi.UpdateRowResponse.newBuilder()
                .setConsumed(consumed(CapacityUnits.ofWrite(write)))
                .setRow(PlainBufferCodec.encodeRow(returned))
                .build();
    }

    private MessageLite deleteRow(OtsInternalApi.DeleteRowRequest request) throws EmulatorError {
        named(request.getTableName());
        RowWrite write =
                decodeWrite(
                        OtsInternalApi.OperationType.DELETE,
                        request.getPrimaryKey(),
                        request.getCondition(),
                        request.getReturnContent());
        Optional<Row> returned = store.write(request.getTableName(), write);
        return OtsInternalApi.DeleteRowResponse.newBuilder()
                .setConsumed(consumed(CapacityUnits.ofWrite(write)))
                .setRow(PlainBufferCodec.encodeRow(returned))
                .build();
    }

    private static RowWrite decodeWrite(
            OtsInternalApi.OperationType type,
            ByteString row,
            OtsInternalApi.Condition condition,
            OtsInternalApi.ReturnContent returnContent)
            throws EmulatorError {
        PlainBufferRow pb = PlainBufferCodec.readRow(row);
        PrimaryKey key = PlainBufferCodec.primaryKey(pb);
        List<RecordColumn> cells;
        List<Column> increments = List.of();
        StreamRecord.RecordType recordType;
        switch (type) {
            case PUT:
                cells = PlainBufferCodec.putCells(pb);
                recordType = StreamRecord.RecordType.PUT;
                break;
            case UPDATE:
                cells = PlainBufferCodec.updateCells(pb);
                increments = PlainBufferCodec.increments(pb);
                recordType = StreamRecord.RecordType.UPDATE;
                break;
            default:
                cells = List.of();
                recordType = StreamRecord.RecordType.DELETE;
        }
        Limits.primaryKey(key, true);
        Limits.cells(RowWrite.withIncrements(cells, increments));
        boolean returnPk = returnContent.getReturnType() == OtsInternalApi.ReturnType.RT_PK;
        List<String> returnColumns = returnColumns(returnContent, increments);
        return new RowWrite(
                recordType,
                key,
                cells,
                decodeCondition(condition),
                returnPk,
                increments,
                returnColumns);
    }

    /**
     * The columns an answer carries: with RT_AFTER_MODIFY, the named ones, each of which the row
     * change increments (only those have a value the client cannot know); no names with any other
     * return type. A request that breaks either rule is refused, and nothing of it is written.
     */
    private static List<String> returnColumns(
            OtsInternalApi.ReturnContent returnContent, List<Column> increments)
            throws EmulatorError {
        List<String> names = returnContent.getReturnColumnNamesList();
        if (names.isEmpty()) {
            return List.of();
        }
        if (returnContent.getReturnType() != OtsInternalApi.ReturnType.RT_AFTER_MODIFY) {
            throw EmulatorError.parameterInvalid(
                    "Return columns "
                            + names
                            + " need ReturnType RT_AFTER_MODIFY, not "
                            + returnContent.getReturnType());
        }
        Set<String> incremented = new java.util.HashSet<>();
        increments.forEach(c -> incremented.add(c.getName()));
        for (String name : names) {
            if (!incremented.contains(name)) {
                throw EmulatorError.parameterInvalid(
                        "Return column '"
                                + name
                                + "' is not incremented by this row change; RT_AFTER_MODIFY"
                                + " returns atomically incremented columns only");
            }
        }
        return List.copyOf(new java.util.LinkedHashSet<>(names));
    }

    private static WriteCondition decodeCondition(OtsInternalApi.Condition condition)
            throws EmulatorError {
        RowExistenceExpectation existence =
                RowExistenceExpectation.valueOf(condition.getRowExistence().name());
        Optional<RowFilter> columns =
                condition.hasColumnCondition()
                        ? Optional.of(RowFilter.parse(condition.getColumnCondition()))
                        : Optional.empty();
        return new WriteCondition(existence, columns);
    }

    private MessageLite getRow(OtsInternalApi.GetRowRequest request) throws EmulatorError {
        named(request.getTableName());
        PrimaryKey key = PlainBufferCodec.primaryKey(request.getPrimaryKey());
        Limits.primaryKey(key, true);
        Limits.columnsToGet(request.getColumnsToGetList());
        RowRead read =
                store.getRow(
                        request.getTableName(),
                        key,
                        Set.copyOf(request.getColumnsToGetList()),
                        ReadVersions.of(
                                false,
                                request.hasMaxVersions(),
                                request.getMaxVersions(),
                                request.hasTimeRange(),
                                request.getTimeRange()),
                        request.hasFilter()
                                ? Optional.of(RowFilter.parse(request.getFilter()))
                                : Optional.empty());
        return OtsInternalApi.GetRowResponse.newBuilder()
                .setConsumed(consumed(CapacityUnits.ofRead(read.bytesRead())))
                .setRow(PlainBufferCodec.encodeRow(read.row()))
                .build();
    }

    private MessageLite getRange(OtsInternalApi.GetRangeRequest request) throws EmulatorError {
        named(request.getTableName());
        Limits.columnsToGet(request.getColumnsToGetList());
        RangeQuery query =
                new RangeQuery(
                        request.getDirection() == OtsInternalApi.Direction.FORWARD,
                        PlainBufferCodec.primaryKey(request.getInclusiveStartPrimaryKey()),
                        PlainBufferCodec.primaryKey(request.getExclusiveEndPrimaryKey()),
                        request.hasLimit() ? request.getLimit() : 0,
                        Set.copyOf(request.getColumnsToGetList()),
                        ReadVersions.of(
                                false,
                                request.hasMaxVersions(),
                                request.getMaxVersions(),
                                request.hasTimeRange(),
                                request.getTimeRange()),
                        request.hasFilter()
                                ? Optional.of(RowFilter.parse(request.getFilter()))
                                : Optional.empty());
        if (request.hasLimit() && request.getLimit() <= 0) {
            throw EmulatorError.parameterInvalid("The limit must be greater than 0.");
        }
        Limits.primaryKey(query.inclusiveStart(), false);
        Limits.primaryKey(query.exclusiveEnd(), false);
        RangePage page = store.getRange(request.getTableName(), query);
        OtsInternalApi.GetRangeResponse.Builder out =
                OtsInternalApi.GetRangeResponse.newBuilder()
                        .setConsumed(consumed(CapacityUnits.ofRead(page.bytesRead())))
                        .setRows(PlainBufferCodec.encodeRows(page.rows()));
        page.nextStart()
                .ifPresent(k -> out.setNextStartPrimaryKey(PlainBufferCodec.encodePrimaryKey(k)));
        return out.build();
    }

    /** The service's limits of one BatchWriteRow request (its API reference). */
    static final int BATCH_WRITE_MAX_ROWS = 200;

    /**
     * Applies each row on its own (an atomic request only checks that each table's rows share a
     * partition key); results keep each table's row order. First, as the service does, refuses the
     * whole request (nothing applied) when it names one primary key of a table twice, carries more
     * than 200 row changes, or more than 4 MB.
     */
    private MessageLite batchWriteRow(OtsInternalApi.BatchWriteRowRequest request)
            throws EmulatorError {
        checkBatchWrite(request);
        OtsInternalApi.BatchWriteRowResponse.Builder out =
                OtsInternalApi.BatchWriteRowResponse.newBuilder();
        for (OtsInternalApi.TableInBatchWriteRowRequest table : request.getTablesList()) {
            OtsInternalApi.TableInBatchWriteRowResponse.Builder tableOut =
                    OtsInternalApi.TableInBatchWriteRowResponse.newBuilder()
                            .setTableName(table.getTableName());
            Optional<EmulatorError> outOfScope =
                    request.getIsAtomic() ? atomicScope(table) : Optional.empty();
            for (OtsInternalApi.RowInBatchWriteRowRequest row : table.getRowsList()) {
                tableOut.addRows(
                        outOfScope.isPresent()
                                ? OtsInternalApi.RowInBatchWriteRowResponse.newBuilder()
                                        .setIsOk(false)
                                        .setError(error(outOfScope.get()))
                                        .build()
                                : batchWriteOne(table.getTableName(), row));
            }
            out.addTables(tableOut);
        }
        return out.build();
    }

    /**
     * An atomic BatchWriteRow keeps each table's rows in one partition key: when a table's rows
     * name two, every row of that table fails with the service's error, naming the first row's
     * partition key and the first other one (its SDK test {@code OTSAPIBehaviorTest}). The rows of
     * one partition key are then applied one by one, as in any BatchWriteRow.
     */
    private static Optional<EmulatorError> atomicScope(
            OtsInternalApi.TableInBatchWriteRowRequest table) {
        PrimaryKeyValue first = null;
        for (OtsInternalApi.RowInBatchWriteRowRequest row : table.getRowsList()) {
            PrimaryKeyValue partKey;
            try {
                partKey =
                        PlainBufferCodec.primaryKey(PlainBufferCodec.readRow(row.getRowChange()))
                                .getPrimaryKeyColumn(0)
                                .getValue();
            } catch (EmulatorError | RuntimeException e) {
                continue; // reported on its own row
            }
            if (first == null) {
                first = partKey;
            } else if (!first.equals(partKey)) {
                return Optional.of(
                        new EmulatorError(
                                "OTSDataOutOfRange",
                                400,
                                "Data out of scope of atomic. Atomic PartKey:"
                                        + first
                                        + ". Data PartKey:"
                                        + partKey));
            }
        }
        return Optional.empty();
    }

    private void checkBatchWrite(OtsInternalApi.BatchWriteRowRequest request) throws EmulatorError {
        int rows = 0;
        Set<String> tables = new java.util.HashSet<>();
        for (OtsInternalApi.TableInBatchWriteRowRequest table : request.getTablesList()) {
            String name = named(table.getTableName());
            if (!tables.add(name)) {
                throw EmulatorError.parameterInvalid(
                        "The BatchWriteRow request names table '"
                                + name
                                + "' twice; put all of its rows under one table entry");
            }
            if (table.getRowsCount() == 0) {
                throw EmulatorError.parameterInvalid(
                        "The BatchWriteRow request has no row for table '"
                                + name
                                + "'; leave the table out");
            }
            if (store.tableMeta(name).isEmpty()) {
                // The service's words (a BatchWriteRow naming a missing table fails as a whole).
                throw EmulatorError.objectNotExist(TableStore.NO_SUCH_TABLE);
            }
            rows += table.getRowsCount();
        }
        if (rows > BATCH_WRITE_MAX_ROWS) {
            throw EmulatorError.parameterInvalid(
                    "Rows count exceeds the upper limit: " + BATCH_WRITE_MAX_ROWS + ".");
        }
        long bytes = 0;
        for (OtsInternalApi.TableInBatchWriteRowRequest table : request.getTablesList()) {
            for (OtsInternalApi.RowInBatchWriteRowRequest row : table.getRowsList()) {
                bytes += checkedDataSize(row);
            }
        }
        if (bytes > Limits.MAX_REQUEST_DATA_BYTES) {
            throw Limits.tooMuchData("BatchWriteRow", bytes);
        }
        if (repeatedKeysAccepted) {
            return;
        }
        for (OtsInternalApi.TableInBatchWriteRowRequest table : request.getTablesList()) {
            Set<PrimaryKey> keys = new java.util.HashSet<>();
            for (OtsInternalApi.RowInBatchWriteRowRequest row : table.getRowsList()) {
                PrimaryKey key;
                try {
                    key = PlainBufferCodec.primaryKey(PlainBufferCodec.readRow(row.getRowChange()));
                } catch (EmulatorError e) {
                    continue; // reported on its own row, as before
                }
                // A key whose auto-increment column is yet to be filled names a new row each.
                if (!TableStore.hasAutoIncrementPlaceholder(key) && !keys.add(key)) {
                    throw EmulatorError.parameterInvalid(
                            "The BatchWriteRow request changes the row "
                                    + key
                                    + " of table '"
                                    + table.getTableName()
                                    + "' more than once; a request may name each primary key"
                                    + " once: merge the changes into one, or send them in"
                                    + " separate requests");
                }
            }
        }
    }

    /**
     * A BatchWriteRow row's data size as the service counts it, after the limits on its key and
     * cells (which refuse the whole request, as the service does); 0 for a row that cannot be
     * decoded, which fails on its own.
     */
    private static long checkedDataSize(OtsInternalApi.RowInBatchWriteRowRequest row)
            throws EmulatorError {
        PrimaryKey key;
        List<RecordColumn> cells;
        try {
            PlainBufferRow pb = PlainBufferCodec.readRow(row.getRowChange());
            key = PlainBufferCodec.primaryKey(pb);
            switch (row.getType()) {
                case PUT:
                    cells = PlainBufferCodec.putCells(pb);
                    break;
                case UPDATE:
                    cells =
                            RowWrite.withIncrements(
                                    PlainBufferCodec.updateCells(pb),
                                    PlainBufferCodec.increments(pb));
                    break;
                default:
                    cells = List.of();
            }
        } catch (EmulatorError e) {
            return 0; // reported on its own row
        }
        Limits.primaryKey(key, true);
        Limits.cells(cells);
        return Limits.dataSize(key, cells);
    }

    /**
     * Applies one row of a BatchWriteRow. A row whose condition fails carries the error and the
     * capacity the check consumed (the SDK does not surface it for failed rows); a row refused for
     * another reason carries the error alone.
     */
    private OtsInternalApi.RowInBatchWriteRowResponse batchWriteOne(
            String table, OtsInternalApi.RowInBatchWriteRowRequest row) {
        try {
            RowWrite write =
                    decodeWrite(
                            row.getType(),
                            row.getRowChange(),
                            row.getCondition(),
                            row.getReturnContent());
            Optional<Row> returned = store.write(table, write);
            OtsInternalApi.RowInBatchWriteRowResponse.Builder ok =
                    OtsInternalApi.RowInBatchWriteRowResponse.newBuilder()
                            .setIsOk(true)
                            .setConsumed(consumed(CapacityUnits.ofWrite(write)));
            returned.ifPresent(r -> ok.setRow(PlainBufferCodec.encodeRow(returned)));
            return ok.build();
        } catch (EmulatorError e) {
            OtsInternalApi.RowInBatchWriteRowResponse.Builder failed =
                    OtsInternalApi.RowInBatchWriteRowResponse.newBuilder()
                            .setIsOk(false)
                            .setError(error(e));
            if (e.code().equals(TableStore.CONDITION_CHECK_FAIL)) {
                failed.setConsumed(consumed(CapacityUnits.Consumed.CONDITION_FAILED));
            }
            return failed.build();
        }
    }

    /** The service's limit of rows in one BatchGetRow request (its API reference). */
    static final int BATCH_GET_MAX_ROWS = 100;

    /** The unit of ComputeSplitPointsBySize's split_size when the request names none: 100 MB. */
    static final long SPLIT_SIZE_UNIT_BYTES = 100L * 1024 * 1024;

    /** Split points the emulator returns at most when the request sets no limit. */
    static final int MAX_SPLIT_POINTS = 10_000;

    /**
     * Answers with the table's primary-key schema, split points on its first primary-key column
     * (see {@link TableStore#splitPoints}) and one location for all splits, which the SDK turns
     * into splits from INF_MIN to INF_MAX.
     */
    private MessageLite computeSplitPoints(OtsInternalApi.ComputeSplitPointsBySizeRequest request)
            throws EmulatorError {
        if (request.getSplitSize() <= 0) {
            throw EmulatorError.parameterInvalid("The split_size should be greater than 0.");
        }
        long unit =
                request.hasSplitSizeUnitInByte()
                        ? request.getSplitSizeUnitInByte()
                        : SPLIT_SIZE_UNIT_BYTES;
        if (unit <= 0) {
            // The service's words; it refuses any unit below 1 MB, the emulator only <= 0 so
            // that tests can cut small tables (see the README).
            throw EmulatorError.parameterInvalid(
                    "The split_size_unit_in_byte should be greater equal than: 1048576");
        }
        int limit = request.hasSplitPointLimit() ? request.getSplitPointLimit() : MAX_SPLIT_POINTS;
        if (limit < 0) {
            throw EmulatorError.parameterInvalid(
                    "ComputeSplitPointsBySize split_point_limit must not be negative, got "
                            + limit);
        }
        String table = named(request.getTableName());
        List<PrimaryKeySchema> schema = store.primaryKeySchema(table);
        long splitBytes =
                Math.multiplyHigh(request.getSplitSize(), unit) != 0
                        ? Long.MAX_VALUE
                        : request.getSplitSize() * unit;
        List<PrimaryKeyValue> points = store.splitPoints(table, splitBytes, limit);
        OtsInternalApi.ComputeSplitPointsBySizeResponse.Builder out =
                OtsInternalApi.ComputeSplitPointsBySizeResponse.newBuilder()
                        .setConsumed(consumed(new CapacityUnits.Consumed(1, 0)));
        for (PrimaryKeySchema pk : schema) {
            out.addSchema(
                    OtsInternalApi.PrimaryKeySchema.newBuilder()
                            .setName(pk.getName())
                            .setType(OtsInternalApi.PrimaryKeyType.valueOf(pk.getType().name())));
        }
        String first = schema.get(0).getName();
        for (PrimaryKeyValue point : points) {
            out.addSplitPoints(
                    PlainBufferCodec.encodePrimaryKey(
                            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                    .addPrimaryKeyColumn(first, point)
                                    .build()));
        }
        out.addLocations(
                OtsInternalApi.ComputeSplitPointsBySizeResponse.SplitLocation.newBuilder()
                        .setLocation(SPLIT_LOCATION)
                        .setRepeat(points.size() + 1L));
        return out.build();
    }

    /**
     * The one storage location the emulator reports for every split: 32 hexadecimal digits, the
     * form of the service's locations (its SDK test {@code TestComputeSplitPointsBySize}).
     */
    static final String SPLIT_LOCATION = "e0000000000000000000000000000000";

    private MessageLite batchGetRow(OtsInternalApi.BatchGetRowRequest request)
            throws EmulatorError {
        checkBatchGet(request);
        OtsInternalApi.BatchGetRowResponse.Builder out =
                OtsInternalApi.BatchGetRowResponse.newBuilder();
        for (OtsInternalApi.TableInBatchGetRowRequest table : request.getTablesList()) {
            OtsInternalApi.TableInBatchGetRowResponse.Builder tableOut =
                    OtsInternalApi.TableInBatchGetRowResponse.newBuilder()
                            .setTableName(table.getTableName());
            Set<String> columns = Set.copyOf(table.getColumnsToGetList());
            ReadVersions versions =
                    ReadVersions.of(
                            true,
                            table.hasMaxVersions(),
                            table.getMaxVersions(),
                            table.hasTimeRange(),
                            table.getTimeRange());
            Optional<RowFilter> filter =
                    table.hasFilter()
                            ? Optional.of(RowFilter.parse(table.getFilter()))
                            : Optional.empty();
            for (ByteString key : table.getPrimaryKeyList()) {
                tableOut.addRows(batchGetOne(table.getTableName(), key, columns, versions, filter));
            }
            out.addTables(tableOut);
        }
        return out.build();
    }

    private static void checkBatchGet(OtsInternalApi.BatchGetRowRequest request)
            throws EmulatorError {
        int rows = 0;
        for (OtsInternalApi.TableInBatchGetRowRequest table : request.getTablesList()) {
            named(table.getTableName());
            Limits.columnsToGet(table.getColumnsToGetList());
            for (ByteString key : table.getPrimaryKeyList()) {
                Limits.primaryKey(PlainBufferCodec.primaryKey(key), true);
            }
            rows += table.getPrimaryKeyCount();
        }
        if (rows > BATCH_GET_MAX_ROWS) {
            throw EmulatorError.parameterInvalid(
                    "Rows count exceeds the upper limit: " + BATCH_GET_MAX_ROWS + ".");
        }
    }

    private OtsInternalApi.RowInBatchGetRowResponse batchGetOne(
            String table,
            ByteString key,
            Set<String> columns,
            ReadVersions versions,
            Optional<RowFilter> filter) {
        try {
            RowRead read =
                    store.getRow(
                            table, PlainBufferCodec.primaryKey(key), columns, versions, filter);
            return OtsInternalApi.RowInBatchGetRowResponse.newBuilder()
                    .setIsOk(true)
                    .setConsumed(consumed(CapacityUnits.ofRead(read.bytesRead())))
                    .setRow(PlainBufferCodec.encodeRow(read.row()))
                    .build();
        } catch (EmulatorError e) {
            return OtsInternalApi.RowInBatchGetRowResponse.newBuilder()
                    .setIsOk(false)
                    .setError(error(e))
                    .build();
        }
    }

    private static OtsInternalApi.Error error(EmulatorError e) {
        return OtsInternalApi.Error.newBuilder()
                .setCode(e.code())
                .setMessage(e.getMessage())
                .build();
    }

    private static OtsInternalApi.ConsumedCapacity consumed(CapacityUnits.Consumed units) {
        return OtsInternalApi.ConsumedCapacity.newBuilder()
                .setCapacityUnit(
                        OtsInternalApi.CapacityUnit.newBuilder()
                                .setRead(units.read())
                                .setWrite(units.write()))
                .build();
    }
}
