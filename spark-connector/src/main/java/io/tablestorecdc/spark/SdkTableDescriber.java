package io.tablestorecdc.spark;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the source table's primary key with DescribeTable: the one table call the schema needs. */
final class SdkTableDescriber {

    private SdkTableDescriber() {}

    /**
     * What the source's schema needs of a table.
     *
     * @param primaryKey the primary-key columns, in key order
     * @param streamOriginColumns the attribute columns whose values before a change the table's
     *     stream records carry (empty when it names none)
     */
    record Description(List<PrimaryKeyColumn> primaryKey, Set<String> streamOriginColumns) {}

    /**
     * The primary-key columns of {@code tableName}, in key order.
     *
     * @throws IllegalArgumentException when the table does not exist or cannot be described
     */
    static List<PrimaryKeyColumn> primaryKey(TablestoreEndpoint endpoint, String tableName) {
        return describe(endpoint, tableName).primaryKey();
    }

    /**
     * The table's primary key and stream origin columns (one DescribeTable).
     *
     * @throws IllegalArgumentException when the table does not exist or cannot be described
     */
    static Description describe(TablestoreEndpoint endpoint, String tableName) {
        return describeAll(endpoint, List.of(tableName)).get(tableName);
    }

    /**
     * Each table's primary key and stream origin columns (one DescribeTable each, through one
     * client), in the order given.
     *
     * @throws IllegalArgumentException when a table does not exist or cannot be described, naming
     *     it
     */
    static Map<String, Description> describeAll(TablestoreEndpoint endpoint, List<String> tables) {
        SyncClient client =
                new SyncClient(
                        endpoint.endpoint(),
                        SdkCredentials.open(endpoint.credentials()),
                        endpoint.instanceName(),
                        null,
                        null);
        Map<String, Description> described = new LinkedHashMap<>();
        try {
            for (String table : tables) {
                described.put(table, describe(client, endpoint, table));
            }
            return described;
        } finally {
            client.shutdown();
        }
    }

    private static Description describe(
            SyncClient client, TablestoreEndpoint endpoint, String tableName) {
        try {
            DescribeTableResponse described =
                    client.describeTable(new DescribeTableRequest(tableName));
            List<PrimaryKeyColumn> columns = new ArrayList<>();
            for (PrimaryKeySchema pk : described.getTableMeta().getPrimaryKeyList()) {
                columns.add(new PrimaryKeyColumn(pk.getName(), type(pk)));
            }
            return new Description(List.copyOf(columns), SdkTableService.originColumns(described));
        } catch (TableStoreException e) {
            throw describeFailed(endpoint, tableName, e.getErrorCode() + ": " + e.getMessage(), e);
        } catch (ClientException e) {
            throw describeFailed(endpoint, tableName, e.getMessage(), e);
        }
    }

    private static CellValue.Type type(PrimaryKeySchema pk) {
        return switch (pk.getType()) {
            case STRING -> CellValue.Type.STRING;
            case INTEGER -> CellValue.Type.INTEGER;
            case BINARY -> CellValue.Type.BINARY;
        };
    }

    private static IllegalArgumentException describeFailed(
            TablestoreEndpoint endpoint, String tableName, String why, Exception cause) {
        return new IllegalArgumentException(
                "Could not describe table '"
                        + tableName
                        + "' on instance "
                        + endpoint.instanceName()
                        + " at "
                        + endpoint.endpoint()
                        + " ("
                        + why
                        + "). Check the options "
                        + TablestoreSourceOptions.TABLE_NAME
                        + ", "
                        + TablestoreSourceOptions.ENDPOINT
                        + ", "
                        + TablestoreSourceOptions.INSTANCE_NAME
                        + " and the credentials options.",
                cause);
    }
}
