package io.tablestorecdc.checkpoint.tunnel;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The column names of a page, one string per name: a name is compared, as bytes, with the one last
 * seen at its position, and decoded only when it differs (see {@link ColumnNames}).
 */
final class BufferNames {
    private final ColumnNames shared = new ColumnNames();
    private String[] strings = new String[8];
    private byte[][] bytes = new byte[8][];

    String of(int position, PlainBufferRow row, int i) {
        if (position >= strings.length) {
            strings = Arrays.copyOf(strings, Math.max(position + 1, strings.length * 2));
            bytes = Arrays.copyOf(bytes, strings.length);
        }
        int from = row.nameOffset[i];
        int to = from + row.nameLength[i];
        byte[] known = bytes[position];
        if (known != null && Arrays.equals(known, 0, known.length, row.buf, from, to)) {
            return strings[position];
        }
        byte[] name = Arrays.copyOfRange(row.buf, from, to);
        bytes[position] = name;
        strings[position] = shared.of(new String(name, StandardCharsets.UTF_8));
        return strings[position];
    }
}
