package io.tablestorecdc.checkpoint.tunnel;

import java.util.Arrays;

/**
 * One tunnel record's PlainBuffer row, parsed in place: where each cell's name and value lie in the
 * record's bytes, nothing copied or decoded. It checks what the SDK's {@code
 * PlainBufferCodedInputStream} checks (header, tag order, cell and row checksums, one row per
 * record) and what its {@code PlainBufferConversion.toRecordColumn} requires of each cell's value,
 * timestamp and operation, so a record is accepted here exactly when the SDK would decode it.
 *
 * <p>Reused from record to record: {@link #parse} overwrites the previous row. Not thread-safe.
 */
final class PlainBufferRow {

    static final int HEADER = 0x75;
    static final byte TAG_ROW_PK = 0x1;
    static final byte TAG_ROW_DATA = 0x2;
    static final byte TAG_CELL = 0x3;
    static final byte TAG_CELL_NAME = 0x4;
    static final byte TAG_CELL_VALUE = 0x5;
    static final byte TAG_CELL_TYPE = 0x6;
    static final byte TAG_CELL_TIMESTAMP = 0x7;
    static final byte TAG_DELETE_ROW_MARKER = 0x8;
    static final byte TAG_ROW_CHECKSUM = 0x9;
    static final byte TAG_CELL_CHECKSUM = 0x0A;
    static final byte TAG_EXTENSION = 0x0B;
    static final byte TAG_SEQ_INFO = 0x0C;
    static final byte TAG_SEQ_INFO_EPOCH = 0x0D;
    static final byte TAG_SEQ_INFO_TS = 0x0E;
    static final byte TAG_SEQ_INFO_ROW_INDEX = 0x0F;

    static final byte DELETE_ALL_VERSION = 0x1;
    static final byte DELETE_ONE_VERSION = 0x3;

    static final byte VT_INTEGER = 0x0;
    static final byte VT_DOUBLE = 0x1;
    static final byte VT_BOOLEAN = 0x2;
    static final byte VT_STRING = 0x3;
    static final byte VT_BLOB = 0x7;
    static final byte VT_INF_MIN = 0x9;
    static final byte VT_INF_MAX = 0xa;

    /** A cell without a value, or without an operation type (a PUT). */
    static final byte NONE = -1;

    // CRC-8 (polynomial x^8 + x^2 + x + 1, no reflection, no final xor), as the SDK's
    // PlainBufferCrc8. The checksum is linear, so eight bytes fold in at once: AHEAD_k[x] is the
    // checksum of byte x followed by k zero bytes, and the checksum after bytes b0..b7 from state
    // c is AHEAD_7[c ^ b0] ^ AHEAD_6[b1] ^ ... ^ CRC8[b7], eight loads that do not wait on each
    // other. (One constant array per table, so that the compiler drops the bounds checks.)
    private static final byte[] CRC8 = ahead(0);
    private static final byte[] AHEAD_1 = ahead(1);
    private static final byte[] AHEAD_2 = ahead(2);
    private static final byte[] AHEAD_3 = ahead(3);
    private static final byte[] AHEAD_4 = ahead(4);
    private static final byte[] AHEAD_5 = ahead(5);
    private static final byte[] AHEAD_6 = ahead(6);
    private static final byte[] AHEAD_7 = ahead(7);

    /** The table of each byte's checksum followed by {@code zeros} zero bytes. */
    private static byte[] ahead(int zeros) {
        byte[] table = new byte[256];
        for (int i = 0; i < 256; i++) {
            byte x = (byte) i;
            for (int j = 0; j < 8 * (zeros + 1); j++) {
                x = (byte) ((x << 1) ^ ((x & 0x80) != 0 ? 0x07 : 0));
            }
            table[i] = x;
        }
        return table;
    }

    byte[] buf = new byte[0];
    private int pos;
    private int end;
    private int tag;

    int keyCount;
    int cellCount;
    // Cells 0..keyCount-1 are the primary key, keyCount.. the attribute cells, in the record's
    // order.
    int[] nameOffset = new int[8];
    int[] nameLength = new int[8];
    byte[] valueType = new byte[8];
    int[] valueOffset = new int[8];
    // Where a value's type byte is and where the value ends: the checksum's input, as it lies.
    private int[] valueStart = new int[8];
    private int[] valueEnd = new int[8];
    private int[] timestampOffset = new int[8];
    int[] valueLength = new int[8];
    // An integer's value, a double's raw bits, a boolean's 0 or 1.
    long[] valueBits = new long[8];
    byte[] cellType = new byte[8];
    boolean[] hasTimestamp = new boolean[8];
    long[] timestamp = new long[8];
    private byte[] checksum = new byte[8];
    boolean deleteMarker;
    boolean hasSequence;
    int epoch;
    long sequenceTimestamp;
    int rowIndex;

    /** A record this row type cannot accept; the message says what the SDK would have rejected. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Parses {@code length} bytes of {@code bytes} from {@code offset} as one row with header: with
     * {@code withPrimaryKey}, a record (its key must not be empty); without, an origin record (the
     * before-image, no key cells).
     */
    void parse(byte[] bytes, int offset, int length, boolean withPrimaryKey) throws Malformed {
        begin(bytes, offset, length);
        readRow(withPrimaryKey);
        if (pos != end) {
            throw new Malformed("more than one row in a record");
        }
    }

    /**
     * Starts reading {@code length} bytes of {@code bytes} from {@code offset} as rows with one
     * header, as a GetRange response's rows or its next start key come; {@link #nextRow()} then
     * reads them in turn.
     */
    void begin(byte[] bytes, int offset, int length) throws Malformed {
        buf = bytes;
        pos = offset;
        end = offset + length;
        if (int32() != HEADER) {
            throw new Malformed("invalid PlainBuffer header");
        }
    }

    /** Reads the next row after {@link #begin}, which must have a primary key; false at the end. */
    boolean nextRow() throws Malformed {
        if (pos == end) {
            return false;
        }
        readRow(true);
        return true;
    }

    private void readRow(boolean withPrimaryKey) throws Malformed {
        keyCount = 0;
        cellCount = 0;
        deleteMarker = false;
        hasSequence = false;
        epoch = 0;
        sequenceTimestamp = 0;
        rowIndex = 0;
        readTag();
        if (tag == TAG_ROW_PK) {
            readTag();
            while (tag == TAG_CELL) {
                readCell(true);
                keyCount++;
            }
        }
        if (withPrimaryKey && keyCount == 0) {
            throw new Malformed("a record without a primary key");
        }
        if (tag == TAG_ROW_DATA) {
            readTag();
            while (tag == TAG_CELL) {
                readCell(false);
            }
        }
        if (tag == TAG_DELETE_ROW_MARKER) {
            deleteMarker = true;
            readTag();
        }
        if (tag == TAG_EXTENSION) {
            int32(); // the extension's length
            readTag();
            while (tag == TAG_SEQ_INFO || unknown(tag)) {
                if (tag == TAG_SEQ_INFO) {
                    readSequenceInfo();
                } else {
                    // A newer server's extension, length first: skipped, as the SDK skips it.
                    int skipped = length(int32());
                    pos += skipped;
                    readTag();
                }
            }
        }
        if (tag != TAG_ROW_CHECKSUM) {
            throw new Malformed("expected the row checksum, found tag " + tag);
        }
        byte checksum = rawByte();
        if (checksum != rowChecksum()) {
            throw new Malformed("the row checksum does not match");
        }
    }

    /** A tag this format does not define (the SDK's {@code PlainBufferConsts.isUnknownTag}). */
    private static boolean unknown(int tag) {
        return tag < TAG_ROW_PK || tag > TAG_SEQ_INFO_ROW_INDEX;
    }

    private void readSequenceInfo() throws Malformed {
        int32(); // the sequence info's length
        readTag();
        if (tag != TAG_SEQ_INFO_EPOCH) {
            throw new Malformed("sequence info without its epoch");
        }
        epoch = int32();
        readTag();
        if (tag != TAG_SEQ_INFO_TS) {
            throw new Malformed("sequence info without its timestamp");
        }
        sequenceTimestamp = int64();
        readTag();
        if (tag != TAG_SEQ_INFO_ROW_INDEX) {
            throw new Malformed("sequence info without its row index");
        }
        rowIndex = int32();
        readTag();
        hasSequence = true;
    }

    private void readCell(boolean key) throws Malformed {
        int i = keyCount + cellCount;
        if (i == nameOffset.length) {
            grow(i * 2);
        }
        readTag();
        if (tag != TAG_CELL_NAME) {
            throw new Malformed("a cell without a name");
        }
        nameLength[i] = length(int32());
        nameOffset[i] = pos;
        pos += nameLength[i];
        readTag();
        valueType[i] = NONE;
        if (tag == TAG_CELL_VALUE) {
            readValue(i, key);
            readTag();
        }
        cellType[i] = NONE;
        if (tag == TAG_CELL_TYPE) {
            cellType[i] = rawByte();
            readTag();
        }
        hasTimestamp[i] = false;
        if (tag == TAG_CELL_TIMESTAMP) {
            timestampOffset[i] = pos;
            long ts = int64();
            if (ts < 0) {
                throw new Malformed("a negative cell timestamp");
            }
            timestamp[i] = ts;
            hasTimestamp[i] = true;
            readTag();
        }
        if (tag != TAG_CELL_CHECKSUM) {
            throw new Malformed("expected a cell checksum, found tag " + tag);
        }
        checksum[i] = cellChecksum(i);
        if (rawByte() != checksum[i]) {
            throw new Malformed("a cell checksum does not match");
        }
        readTag();
        if (!key) {
            checkOperation(i);
            cellCount++;
        }
    }

    private void readValue(int i, boolean key) throws Malformed {
        int32(); // the value's length, which the type implies
        valueStart[i] = pos;
        byte type = rawByte();
        valueType[i] = type;
        if (key && (type == VT_DOUBLE || type == VT_BOOLEAN)) {
            throw new Malformed("a primary-key cell of type " + type);
        }
        switch (type) {
            case VT_INTEGER, VT_DOUBLE -> valueBits[i] = int64();
            case VT_BOOLEAN -> valueBits[i] = rawByte() != 0 ? 1 : 0;
            case VT_STRING, VT_BLOB -> {
                valueLength[i] = length(int32());
                valueOffset[i] = pos;
                pos += valueLength[i];
            }
            case VT_INF_MIN, VT_INF_MAX -> {
                if (!key) {
                    throw new Malformed("an attribute of type " + type);
                }
            }
            default -> throw new Malformed("a value of unsupported type " + type);
        }
        valueEnd[i] = pos;
    }

    /** What {@code PlainBufferConversion.toRecordColumn} requires of an attribute cell. */
    private void checkOperation(int i) throws Malformed {
        boolean value = valueType[i] != NONE;
        switch (cellType[i]) {
            case NONE -> {
                if (!value || !hasTimestamp[i]) {
                    throw new Malformed("a cell without both value and timestamp");
                }
            }
            case DELETE_ONE_VERSION -> {
                if (value || !hasTimestamp[i]) {
                    throw new Malformed("a one-version delete with a value or no timestamp");
                }
            }
            case DELETE_ALL_VERSION -> {
                if (value || hasTimestamp[i]) {
                    throw new Malformed("an all-version delete with a value or timestamp");
                }
            }
            default -> throw new Malformed("a cell of unknown operation type " + cellType[i]);
        }
    }

    /**
     * The SDK's cell checksum: over the name, the value (its type, then a number's 8 bytes, a
     * boolean as 0 or 1, or a string's or binary's length and bytes), the timestamp, the operation
     * type. Except for a boolean, the value's part is the bytes from its type byte to its end, and
     * the timestamp's its 8 bytes, little-endian as the SDK folds them, so they are read in place.
     */
    private byte cellChecksum(int i) {
        byte crc = crc8(0, buf, nameOffset[i], nameLength[i]);
        byte type = valueType[i];
        if (type == VT_BOOLEAN) {
            crc = crc8(crc, type);
            crc = crc8(crc, (byte) valueBits[i]);
        } else if (type != NONE) {
            crc = crc8(crc, buf, valueStart[i], valueEnd[i] - valueStart[i]);
        }
        if (hasTimestamp[i]) {
            crc = crc8(crc, buf, timestampOffset[i], 8);
        }
        if (cellType[i] != NONE) {
            crc = crc8(crc, cellType[i]);
        }
        return crc;
    }

    private byte rowChecksum() {
        byte crc = crc8(0, checksum, 0, keyCount + cellCount);
        return crc8(crc, (byte) (deleteMarker ? 1 : 0));
    }

    private void grow(int size) {
        nameOffset = Arrays.copyOf(nameOffset, size);
        nameLength = Arrays.copyOf(nameLength, size);
        valueType = Arrays.copyOf(valueType, size);
        valueOffset = Arrays.copyOf(valueOffset, size);
        valueStart = Arrays.copyOf(valueStart, size);
        valueEnd = Arrays.copyOf(valueEnd, size);
        timestampOffset = Arrays.copyOf(timestampOffset, size);
        valueLength = Arrays.copyOf(valueLength, size);
        valueBits = Arrays.copyOf(valueBits, size);
        cellType = Arrays.copyOf(cellType, size);
        hasTimestamp = Arrays.copyOf(hasTimestamp, size);
        timestamp = Arrays.copyOf(timestamp, size);
        checksum = Arrays.copyOf(checksum, size);
    }

    private void readTag() {
        tag = pos < end ? buf[pos++] : 0;
    }

    private byte rawByte() throws Malformed {
        need(1);
        return buf[pos++];
    }

    private int int32() throws Malformed {
        need(4);
        int v =
                (buf[pos] & 0xff)
                        | (buf[pos + 1] & 0xff) << 8
                        | (buf[pos + 2] & 0xff) << 16
                        | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return v;
    }

    private long int64() throws Malformed {
        need(8);
        long lo = (buf[pos] & 0xffL) | (buf[pos + 1] & 0xffL) << 8;
        lo |= (buf[pos + 2] & 0xffL) << 16 | (buf[pos + 3] & 0xffL) << 24;
        long hi = (buf[pos + 4] & 0xffL) | (buf[pos + 5] & 0xffL) << 8;
        hi |= (buf[pos + 6] & 0xffL) << 16 | (buf[pos + 7] & 0xffL) << 24;
        pos += 8;
        return lo | hi << 32;
    }

    /** A length that must fit in what is left of the record. */
    private int length(int n) throws Malformed {
        if (n < 0 || n > end - pos) {
            throw new Malformed("a length of " + n + " past the end of the record");
        }
        return n;
    }

    private void need(int n) throws Malformed {
        if (end - pos < n) {
            throw new Malformed("the record ends early");
        }
    }

    private static byte crc8(int crc, byte in) {
        return CRC8[(crc ^ in) & 0xff];
    }

    /** The checksum of {@code length} bytes from {@code offset}, continued from {@code crc}. */
    static byte crc8(int crc, byte[] in, int offset, int length) {
        int c = crc & 0xff;
        int i = offset;
        for (int stop = offset + length - 7; i < stop; i += 8) {
            c =
                    (AHEAD_7[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_6[in[i + 1] & 0xff]
                                    ^ AHEAD_5[in[i + 2] & 0xff]
                                    ^ AHEAD_4[in[i + 3] & 0xff]
                                    ^ AHEAD_3[in[i + 4] & 0xff]
                                    ^ AHEAD_2[in[i + 5] & 0xff]
                                    ^ AHEAD_1[in[i + 6] & 0xff]
                                    ^ CRC8[in[i + 7] & 0xff])
                            & 0xff;
        }
        // The last 0 to 7 bytes fold in at once too (a value's tail, a one-letter name).
        return switch (offset + length - i) {
            case 0 -> (byte) c;
            case 1 -> CRC8[(c ^ in[i]) & 0xff];
            case 2 -> (byte) (AHEAD_1[(c ^ in[i]) & 0xff] ^ CRC8[in[i + 1] & 0xff]);
            case 3 ->
                    (byte)
                            (AHEAD_2[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_1[in[i + 1] & 0xff]
                                    ^ CRC8[in[i + 2] & 0xff]);
            case 4 ->
                    (byte)
                            (AHEAD_3[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_2[in[i + 1] & 0xff]
                                    ^ AHEAD_1[in[i + 2] & 0xff]
                                    ^ CRC8[in[i + 3] & 0xff]);
            case 5 ->
                    (byte)
                            (AHEAD_4[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_3[in[i + 1] & 0xff]
                                    ^ AHEAD_2[in[i + 2] & 0xff]
                                    ^ AHEAD_1[in[i + 3] & 0xff]
                                    ^ CRC8[in[i + 4] & 0xff]);
            case 6 ->
                    (byte)
                            (AHEAD_5[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_4[in[i + 1] & 0xff]
                                    ^ AHEAD_3[in[i + 2] & 0xff]
                                    ^ AHEAD_2[in[i + 3] & 0xff]
                                    ^ AHEAD_1[in[i + 4] & 0xff]
                                    ^ CRC8[in[i + 5] & 0xff]);
            default ->
                    (byte)
                            (AHEAD_6[(c ^ in[i]) & 0xff]
                                    ^ AHEAD_5[in[i + 1] & 0xff]
                                    ^ AHEAD_4[in[i + 2] & 0xff]
                                    ^ AHEAD_3[in[i + 3] & 0xff]
                                    ^ AHEAD_2[in[i + 4] & 0xff]
                                    ^ AHEAD_1[in[i + 5] & 0xff]
                                    ^ CRC8[in[i + 6] & 0xff]);
        };
    }
}
