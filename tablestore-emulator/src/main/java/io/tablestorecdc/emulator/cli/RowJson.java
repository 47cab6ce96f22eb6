package io.tablestorecdc.emulator.cli;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.emulator.server.Json;
import io.tablestorecdc.emulator.tunnel.PrimaryKeyJson;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Rows as JSON objects, for the command line and {@code --load}: the table's primary-key columns by
 * name (string, integer, or base64 text for BINARY), every other field an attribute column — a
 * string, an integer, a floating-point number or a boolean; {@code {"base64": "..."}} for binary.
 * In an update, {@code null} deletes the column.
 */
final class RowJson {

    private RowJson() {}

    /** Parses {@code name:TYPE[,name:TYPE...]} (STRING, INTEGER or BINARY) into a table schema. */
    static TableMeta tableMeta(String table, String primaryKeySpec) {
        TableMeta meta = new TableMeta(table);
        for (String part : primaryKeySpec.split(",")) {
            String[] nameAndType = part.trim().split(":");
            if (nameAndType.length != 2 || nameAndType[0].isBlank()) {
                throw new IllegalArgumentException(
                        "A primary-key column is name:TYPE (STRING, INTEGER or BINARY), got '"
                                + part.trim()
                                + "'; for example --pk id:STRING,version:INTEGER");
            }
            meta.addPrimaryKeyColumn(nameAndType[0].trim(), keyType(nameAndType[1].trim()));
        }
        return meta;
    }

    static PrimaryKeyType keyType(String type) {
        try {
            PrimaryKeyType parsed = PrimaryKeyType.valueOf(type.toUpperCase(Locale.ROOT));
            if (parsed == PrimaryKeyType.STRING
                    || parsed == PrimaryKeyType.INTEGER
                    || parsed == PrimaryKeyType.BINARY) {
                return parsed;
            }
        } catch (IllegalArgumentException e) {
            // named below
        }
        throw new IllegalArgumentException(
                "Unknown primary-key type '" + type + "'; use STRING, INTEGER or BINARY");
    }

    /** The row's primary key; every key column of the table must be there. */
    static PrimaryKey primaryKey(TableMeta meta, Map<String, Object> row) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (PrimaryKeySchema column : meta.getPrimaryKeyList()) {
            Object value = row.get(column.getName());
            if (value == null) {
                throw new IllegalArgumentException(
                        "The row "
                                + row
                                + " has no value for primary-key column '"
                                + column.getName()
                                + "' of table '"
                                + meta.getTableName()
                                + "'; its key columns are "
                                + keyNames(meta));
            }
            key.addPrimaryKeyColumn(column.getName(), PrimaryKeyJson.value(column, value));
        }
        return key.build();
    }

    static RowPutChange put(TableMeta meta, Map<String, Object> row) {
        RowPutChange put = new RowPutChange(meta.getTableName(), primaryKey(meta, row));
        for (Map.Entry<String, Object> field : attributes(meta, row).entrySet()) {
            if (field.getValue() == null) {
                throw new IllegalArgumentException(
                        "Column '"
                                + field.getKey()
                                + "' is null; a put writes values only (leave the column out,"
                                + " or use update to delete it)");
            }
            put.addColumn(field.getKey(), value(field.getKey(), field.getValue()));
        }
        return put;
    }

    static RowUpdateChange update(TableMeta meta, Map<String, Object> row) {
        RowUpdateChange update = new RowUpdateChange(meta.getTableName(), primaryKey(meta, row));
        Map<String, Object> columns = attributes(meta, row);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException(
                    "The update of "
                            + row
                            + " names no column besides the primary key; give at least one");
        }
        for (Map.Entry<String, Object> field : columns.entrySet()) {
            if (field.getValue() == null) {
                update.deleteColumns(field.getKey());
            } else {
                update.put(field.getKey(), value(field.getKey(), field.getValue()));
            }
        }
        return update;
    }

    /** A row read back, in the same JSON form. */
    static Map<String, Object> write(Row row) {
        Map<String, Object> json = new LinkedHashMap<>(PrimaryKeyJson.write(row.getPrimaryKey()));
        for (Column column : row.getColumns()) {
            ColumnValue v = column.getValue();
            json.put(
                    column.getName(),
                    switch (v.getType()) {
                        case INTEGER -> v.asLong();
                        case DOUBLE -> v.asDouble();
                        case BOOLEAN -> v.asBoolean();
                        case BINARY ->
                                Map.of("base64", Base64.getEncoder().encodeToString(v.asBinary()));
                        default -> v.asString();
                    });
        }
        return json;
    }

    /** Rows from a JSON array of objects, or from one object per line. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rows(String text) {
        String trimmed = text.trim();
        List<Map<String, Object>> rows = new ArrayList<>();
        if (trimmed.startsWith("[")) {
            for (Object item : (List<Object>) Json.parse(trimmed)) {
                rows.add(object(item));
            }
            return rows;
        }
        for (String line : trimmed.split("\r?\n")) {
            if (!line.isBlank()) {
                rows.add(object(Json.parse(line)));
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object json) {
        if (!(json instanceof Map)) {
            throw new IllegalArgumentException("A row is a JSON object, got: " + json);
        }
        return (Map<String, Object>) json;
    }

    private static Map<String, Object> attributes(TableMeta meta, Map<String, Object> row) {
        Map<String, Object> columns = new LinkedHashMap<>(row);
        meta.getPrimaryKeyList().forEach(column -> columns.remove(column.getName()));
        return columns;
    }

    private static ColumnValue value(String name, Object value) {
        if (value instanceof String s) {
            return ColumnValue.fromString(s);
        }
        if (value instanceof Long n) {
            return ColumnValue.fromLong(n);
        }
        if (value instanceof Double d) {
            return ColumnValue.fromDouble(d);
        }
        if (value instanceof Boolean b) {
            return ColumnValue.fromBoolean(b);
        }
        if (value instanceof Map<?, ?> map
                && map.size() == 1
                && map.get("base64") instanceof String base64) {
            return ColumnValue.fromBinary(Base64.getDecoder().decode(base64));
        }
        throw new IllegalArgumentException(
                "Column '"
                        + name
                        + "' has the value "
                        + value
                        + "; give a string, a number, a boolean or {\"base64\": \"...\"}");
    }

    private static List<String> keyNames(TableMeta meta) {
        return meta.getPrimaryKeyList().stream().map(PrimaryKeySchema::getName).toList();
    }
}
