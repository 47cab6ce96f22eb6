package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows a GetRange response carries as PlainBuffer bytes (its rows, its next start key), decoded
 * into the SDK's {@link Row}s with the checks {@link PlainBufferRow} makes for change records
 * (header, tag order, cell and row checksums, value types): the rows the SDK's own decoding gives,
 * for about a third of its work. The SDK checks each byte's checksum one at a time and looks up the
 * UTF-8 charset by name for every string; this checks eight bytes at a time, decodes each column
 * name once per response, and keeps a string's UTF-8 bytes beside it, so that an engine converts it
 * without encoding it again.
 *
 * <p>Not thread-safe: one instance per response or per reading thread.
 */
@Internal
public final class PlainBufferRows {

    private final PlainBufferRow row = new PlainBufferRow();
    private final BufferNames keyNames = new BufferNames();
    private final BufferNames names = new BufferNames();

    /**
     * The rows of {@code bytes}, in order; an attribute cell keeps its timestamp.
     *
     * @throws ClientException when the bytes are not rows the SDK would accept, naming why
     */
    public List<Row> read(ByteString bytes) {
        byte[] buffer = bytes.toByteArray();
        List<Row> rows = new ArrayList<>();
        try {
            row.begin(buffer, 0, buffer.length);
            while (row.nextRow()) {
                rows.add(toRow());
            }
        } catch (PlainBufferRow.Malformed e) {
            throw new ClientException(
                    "The server sent rows that cannot be read ("
                            + e.getMessage()
                            + "). This is a server or SDK incompatibility: report it with the SDK"
                            + " version.",
                    e);
        }
        return rows;
    }

    /** The one primary key {@code bytes} holds, as a GetRange response's next start key. */
    public PrimaryKey readKey(ByteString bytes) {
        List<Row> rows = read(bytes);
        if (rows.size() != 1 || rows.get(0).getColumns().length != 0) {
            throw new ClientException(
                    "The server sent a next start key of "
                            + rows.size()
                            + " rows, or with attribute columns; it holds one primary key.");
        }
        return rows.get(0).getPrimaryKey();
    }

    private Row toRow() throws PlainBufferRow.Malformed {
        if (row.deleteMarker) {
            throw new PlainBufferRow.Malformed("a row with a delete marker");
        }
        PrimaryKeyColumn[] key = new PrimaryKeyColumn[row.keyCount];
        for (int k = 0; k < row.keyCount; k++) {
            key[k] = new PrimaryKeyColumn(keyNames.of(k, row, k), keyValue(k));
        }
        Column[] columns = new Column[row.cellCount];
        for (int c = 0; c < row.cellCount; c++) {
            int i = row.keyCount + c;
            if (row.cellType[i] != PlainBufferRow.NONE || row.valueType[i] == PlainBufferRow.NONE) {
                throw new PlainBufferRow.Malformed("a read row's cell without a value");
            }
            columns[c] = new Column(names.of(c, row, i), columnValue(i), row.timestamp[i]);
        }
        return new Row(new PrimaryKey(key), columns);
    }

    private PrimaryKeyValue keyValue(int i) throws PlainBufferRow.Malformed {
        return switch (row.valueType[i]) {
            case PlainBufferRow.VT_INTEGER -> PrimaryKeyValue.fromLong(row.valueBits[i]);
            case PlainBufferRow.VT_STRING -> PrimaryKeyValue.fromString(string(i), bytes(i));
            case PlainBufferRow.VT_BLOB -> PrimaryKeyValue.fromBinary(bytes(i));
            case PlainBufferRow.VT_INF_MIN -> PrimaryKeyValue.INF_MIN;
            case PlainBufferRow.VT_INF_MAX -> PrimaryKeyValue.INF_MAX;
            default -> throw new PlainBufferRow.Malformed("a primary-key cell without a value");
        };
    }

    private ColumnValue columnValue(int i) {
        // PlainBufferRow accepted no other type for an attribute.
        return switch (row.valueType[i]) {
            case PlainBufferRow.VT_INTEGER -> ColumnValue.fromLong(row.valueBits[i]);
            case PlainBufferRow.VT_DOUBLE ->
                    ColumnValue.fromDouble(Double.longBitsToDouble(row.valueBits[i]));
            case PlainBufferRow.VT_BOOLEAN -> ColumnValue.fromBoolean(row.valueBits[i] != 0);
            case PlainBufferRow.VT_STRING -> ColumnValue.fromString(string(i), bytes(i));
            default -> ColumnValue.fromBinary(bytes(i));
        };
    }

    private String string(int i) {
        return new String(row.buf, row.valueOffset[i], row.valueLength[i], StandardCharsets.UTF_8);
    }

    private byte[] bytes(int i) {
        int from = row.valueOffset[i];
        return Arrays.copyOfRange(row.buf, from, from + row.valueLength[i]);
    }
}
