package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.TableMeta;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Primary keys in the admin JSON form: an object mapping each key column to a string, an integer,
 * or base64 text for a binary column. A key that names only leading columns is padded with INF_MIN,
 * so it sorts before every full key with that prefix; padded columns are left out when written.
 */
public final class PrimaryKeyJson {

    private PrimaryKeyJson() {}

    /** Reads a key in the table's column order, padding missing trailing columns with INF_MIN. */
    static PrimaryKey read(TableMeta meta, Map<String, Object> json) {
        List<PrimaryKeyColumn> columns = new ArrayList<>();
        boolean padding = false;
        for (PrimaryKeySchema schema : meta.getPrimaryKeyList()) {
            Object value = json.get(schema.getName());
            padding |= value == null;
            PrimaryKeyValue pk = padding ? PrimaryKeyValue.INF_MIN : value(schema, value);
            columns.add(new PrimaryKeyColumn(schema.getName(), pk));
        }
        for (String name : json.keySet()) {
            if (meta.getPrimaryKeyMap().get(name) == null) {
                throw new IllegalArgumentException(
                        "Table "
                                + meta.getTableName()
                                + " has no primary-key column "
                                + name
                                + "; its key columns are "
                                + meta.getPrimaryKeyMap().keySet());
            }
        }
        if (json.isEmpty()) {
            throw new IllegalArgumentException(
                    "The key names no column; give at least the first primary-key column");
        }
        return new PrimaryKey(columns);
    }

    /** Pads a key given in Java the same way as a JSON one. */
    static PrimaryKey pad(TableMeta meta, PrimaryKey key) {
        Map<String, Object> json = new LinkedHashMap<>();
        for (PrimaryKeyColumn c : key.getPrimaryKeyColumns()) {
            json.put(c.getName(), c.getValue());
        }
        return read(meta, json);
    }

    /** The key in the JSON form; padded (INF_MIN / INF_MAX) columns are left out. */
    public static Map<String, Object> write(PrimaryKey key) {
        Map<String, Object> json = new LinkedHashMap<>();
        for (PrimaryKeyColumn c : key.getPrimaryKeyColumns()) {
            PrimaryKeyValue v = c.getValue();
            if (v.isInfMin() || v.isInfMax()) {
                continue;
            }
            switch (v.getType()) {
                case INTEGER -> json.put(c.getName(), v.asLong());
                case BINARY ->
                        json.put(c.getName(), Base64.getEncoder().encodeToString(v.asBinary()));
                default -> json.put(c.getName(), v.asString());
            }
        }
        return json;
    }

    /** One key column's value from its JSON form; the error names the type it needs. */
    public static PrimaryKeyValue value(PrimaryKeySchema schema, Object value) {
        if (value instanceof PrimaryKeyValue pk) {
            return pk;
        }
        switch (schema.getType()) {
            case INTEGER:
                if (value instanceof Number n) {
                    return PrimaryKeyValue.fromLong(n.longValue());
                }
                break;
            case BINARY:
                if (value instanceof String s) {
                    return PrimaryKeyValue.fromBinary(Base64.getDecoder().decode(s));
                }
                break;
            default:
                if (value instanceof String s) {
                    return PrimaryKeyValue.fromString(s);
                }
        }
        throw new IllegalArgumentException(
                "Primary-key column "
                        + schema.getName()
                        + " is "
                        + schema.getType()
                        + " but got "
                        + value
                        + "; give a string, an integer or base64 text");
    }
}
