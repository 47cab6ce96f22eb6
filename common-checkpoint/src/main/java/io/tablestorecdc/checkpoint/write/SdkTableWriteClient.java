package io.tablestorecdc.checkpoint.write;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.SyncClientInterface;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.BatchWriteRowResponse;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.ConsumedCapacity;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowChange;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord.PrimaryKeyColumn;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TransientErrors;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@link TableWriteClient} over the SDK's {@link SyncClient}: the only code of this package that
 * sends requests. Whole requests the SDK's own retry rules give up on come back as {@link
 * WriteRequestException}s, which say whether the writer may send them again (every write it sends
 * is unconditional, so sending one twice gives the same row).
 */
@Internal
public final class SdkTableWriteClient implements TableWriteClient {

    private static final String CLIENT_ERROR = "ClientError";

    private final SyncClientInterface client;

    SdkTableWriteClient(SyncClientInterface client) {
        this.client = client;
    }

    /** A client of the instance {@code endpoint} names, with its credentials source. */
    public static SdkTableWriteClient connect(TablestoreEndpoint endpoint) {
        return new SdkTableWriteClient(
                new SyncClient(
                        endpoint.endpoint(),
                        SdkCredentials.open(endpoint.credentials()),
                        endpoint.instanceName(),
                        new ClientConfiguration(),
                        null));
    }

    @Override
    public List<RowOutcome> batchWrite(String table, List<RowWrite> rows) {
        BatchWriteRowRequest request = new BatchWriteRowRequest();
        for (RowWrite row : rows) {
            request.addRowChange(toSdk(table, row));
        }
        BatchWriteRowResponse response;
        try {
            response = client.batchWriteRow(request);
        } catch (TableStoreException e) {
            throw new WriteRequestException(
                    e.getErrorCode(),
                    e.getMessage() + " (request id " + e.getRequestId() + ")",
                    TransientErrors.isTransient(e.getErrorCode()) || e.getHttpStatus() >= 500,
                    e);
        } catch (ClientException e) {
            throw new WriteRequestException(CLIENT_ERROR, e.getMessage(), !interrupted(e), e);
        }
        RowOutcome[] outcomes = new RowOutcome[rows.size()];
        Arrays.fill(outcomes, RowOutcome.OK);
        for (BatchWriteRowResponse.RowResult result : response.getSucceedRows()) {
            outcomes[result.getIndex()] = RowOutcome.ok(writeUnits(result));
        }
        for (BatchWriteRowResponse.RowResult result : response.getFailedRows()) {
            outcomes[result.getIndex()] =
                    RowOutcome.failed(
                            result.getError().getCode(),
                            result.getError().getMessage(),
                            writeUnits(result));
        }
        return List.of(outcomes);
    }

    /** The write capacity units the service reported for a row, 0 when it reported none. */
    private static long writeUnits(BatchWriteRowResponse.RowResult result) {
        ConsumedCapacity consumed = result.getConsumedCapacity();
        if (consumed == null || consumed.getCapacityUnit() == null) {
            return 0;
        }
        return Math.max(0, consumed.getCapacityUnit().getWriteCapacityUnit());
    }

    @Override
    public List<KeyColumn> primaryKey(String table) {
        List<PrimaryKeySchema> schema;
        try {
            schema =
                    client.describeTable(new DescribeTableRequest(table))
                            .getTableMeta()
                            .getPrimaryKeyList();
        } catch (TableStoreException e) {
            throw new WriteRequestException(
                    e.getErrorCode(),
                    "Could not describe table " + table + ": " + e.getMessage(),
                    false,
                    e);
        } catch (ClientException e) {
            throw new WriteRequestException(
                    CLIENT_ERROR,
                    "Could not describe table " + table + ": " + e.getMessage(),
                    true,
                    e);
        }
        List<KeyColumn> out = new ArrayList<>(schema.size());
        for (PrimaryKeySchema column : schema) {
            CellValue.Type type =
                    switch (column.getType()) {
                        case STRING -> CellValue.Type.STRING;
                        case INTEGER -> CellValue.Type.INTEGER;
                        case BINARY -> CellValue.Type.BINARY;
                    };
            out.add(new KeyColumn(column.getName(), type));
        }
        return out;
    }

    @Override
    public void close() {
        // Its I/O threads end even when the closing thread was interrupted (a cancelled task).
        CloseSequence.of("the table write client")
                .then("shut down its I/O threads", client::shutdown)
                .finish();
    }

    static RowChange toSdk(String table, RowWrite row) {
        PrimaryKey key = primaryKey(row.key());
        switch (row.kind()) {
            case PUT:
                RowPutChange put = new RowPutChange(table, key);
                row.puts().forEach((name, value) -> put.addColumn(name, columnValue(value)));
                return put;
            case UPDATE:
                RowUpdateChange update = new RowUpdateChange(table, key);
                for (Map.Entry<String, CellValue> e : row.puts().entrySet()) {
                    update.put(e.getKey(), columnValue(e.getValue()));
                }
                row.deletes().forEach(update::deleteColumns);
                return update;
            default:
                return new RowDeleteChange(table, key);
        }
    }

    private static PrimaryKey primaryKey(RowKey key) {
        PrimaryKeyBuilder builder = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (PrimaryKeyColumn column : key.columns()) {
            CellValue v = column.value();
            PrimaryKeyValue value =
                    switch (v.type()) {
                        case STRING -> PrimaryKeyValue.fromString(v.asString(), v.utf8());
                        case INTEGER -> PrimaryKeyValue.fromLong(v.asInteger());
                        case BINARY -> PrimaryKeyValue.fromBinary(v.asBinary());
                        default ->
                                throw new TablestoreWriteException(
                                        "Primary-key column "
                                                + column.name()
                                                + " of row "
                                                + key
                                                + " is a "
                                                + v.type()
                                                + "; Tablestore keys are STRING, INTEGER or"
                                                + " BINARY: convert the column");
                    };
            builder.addPrimaryKeyColumn(column.name(), value);
        }
        return builder.build();
    }

    private static ColumnValue columnValue(CellValue v) {
        return switch (v.type()) {
                // With its UTF-8 bytes, which the SDK would otherwise encode again per request.
            case STRING -> ColumnValue.fromString(v.asString(), v.utf8());
            case INTEGER -> ColumnValue.fromLong(v.asInteger());
            case DOUBLE -> ColumnValue.fromDouble(v.asDouble());
            case BOOLEAN -> ColumnValue.fromBoolean(v.asBoolean());
            case BINARY -> ColumnValue.fromBinary(v.asBinary());
        };
    }

    private static boolean interrupted(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return error.getMessage() != null
                && error.getMessage().startsWith("The thread was interrupted");
    }
}
