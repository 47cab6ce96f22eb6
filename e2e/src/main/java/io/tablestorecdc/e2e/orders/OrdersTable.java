package io.tablestorecdc.e2e.orders;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** The demo's table shape: orders keyed by a string order id, with five attribute columns. */
public final class OrdersTable {

    public static final String ORDER_ID = "order_id";
    public static final String CUSTOMER = "customer";
    public static final String QTY = "qty";
    public static final String AMOUNT = "amount";
    public static final String STATUS = "status";
    public static final String NOTE = "note";
    public static final List<String> ATTRIBUTES = List.of(CUSTOMER, QTY, AMOUNT, STATUS, NOTE);

    /** The attribute columns as a Spark DDL schema string. */
    public static final String SPARK_SCHEMA =
            "customer STRING, qty BIGINT, amount DOUBLE, status STRING, note STRING";

    private OrdersTable() {}

    /** The order id of order number {@code n}: zero-padded, so string order is numeric order. */
    public static String orderId(long n) {
        return String.format("order-%07d", n);
    }

    public static PrimaryKey key(String orderId) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn(ORDER_ID, PrimaryKeyValue.fromString(orderId))
                .build();
    }

    /** Creates {@code table} with the orders key; fails with a fix if it already exists. */
    public static void create(SyncClient client, String table) {
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn(ORDER_ID, PrimaryKeyType.STRING);
        try {
            client.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        } catch (TableStoreException e) {
            if ("OTSObjectAlreadyExist".equals(e.getErrorCode())) {
                throw new IllegalStateException(
                        "Table '"
                                + table
                                + "' already exists; pass --table with a new name (the demo"
                                + " creates its tables and needs them empty)",
                        e);
            }
            throw e;
        }
    }

    /** Every row of {@code table}: order id to its attribute columns, read with GetRange. */
    public static SortedMap<String, Map<String, Object>> scan(SyncClient client, String table) {
        SortedMap<String, Map<String, Object>> rows = new TreeMap<>();
        PrimaryKey start = bound(PrimaryKeyValue.INF_MIN);
        while (start != null) {
            RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
            range.setInclusiveStartPrimaryKey(start);
            range.setExclusiveEndPrimaryKey(bound(PrimaryKeyValue.INF_MAX));
            range.setMaxVersions(1);
            GetRangeResponse page = client.getRange(new GetRangeRequest(range));
            for (Row row : page.getRows()) {
                rows.put(
                        row.getPrimaryKey().getPrimaryKeyColumn(ORDER_ID).getValue().asString(),
                        columns(row));
            }
            start = page.getNextStartPrimaryKey();
        }
        return Collections.unmodifiableSortedMap(rows);
    }

    private static PrimaryKey bound(PrimaryKeyValue value) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn(ORDER_ID, value)
                .build();
    }

    private static Map<String, Object> columns(Row row) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Column column : row.getColumns()) {
            out.put(column.getName(), toJava(column.getValue()));
        }
        return out;
    }

    /** A cell as String, Long, Double or Boolean (the types the demo writes). */
    public static Object toJava(ColumnValue value) {
        return switch (value.getType()) {
            case STRING -> value.asString();
            case INTEGER -> value.asLong();
            case DOUBLE -> value.asDouble();
            case BOOLEAN -> value.asBoolean();
            case BINARY -> java.util.Base64.getEncoder().encodeToString(value.asBinary());
            default ->
                    throw new IllegalArgumentException("Unexpected cell type " + value.getType());
        };
    }

    /** A Java value (String, Long, Double, Boolean) as a cell. */
    public static ColumnValue toCell(Object value) {
        if (value instanceof String s) {
            return ColumnValue.fromString(s);
        } else if (value instanceof Long l) {
            return ColumnValue.fromLong(l);
        } else if (value instanceof Double d) {
            return ColumnValue.fromDouble(d);
        } else if (value instanceof Boolean b) {
            return ColumnValue.fromBoolean(b);
        }
        throw new IllegalArgumentException("No Tablestore type for " + value.getClass());
    }
}
