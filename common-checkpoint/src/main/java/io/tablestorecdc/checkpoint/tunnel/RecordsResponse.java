package io.tablestorecdc.checkpoint.tunnel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A {@code readrecords} response message read in place: each record is an offset and a length in
 * the response body, with no message object, no copy of its bytes, no builder per record. It reads
 * the protobuf wire format as the SDK's generated {@code TunnelServiceApi.ReadRecordsResponse}
 * parser does (proto2):
 *
 * <pre>
 * message ReadRecordsResponse { repeated Record records = 1; required string next_token = 2;
 *                               optional bool may_more_record = 3; }
 * message Record { required ActionType action_type = 1; required bytes record = 2;
 *                  optional bytes origin_record = 3; }
 * enum ActionType { PUT_ROW = 1; UPDATE_ROW = 2; DELETE_ROW = 3; }
 * </pre>
 *
 * <p>Unknown fields are skipped (groups included), a field of an unexpected wire type counts as
 * unknown, a repeated singular field keeps its last value, and an action type outside the enum
 * counts as absent. A message that is cut short, malformed, or lacks a required field fails with an
 * {@link IOException} that says so, which the reader reports as the SDK reports its parse errors.
 */
final class RecordsResponse {

    static final byte PUT_ROW = 1;
    static final byte UPDATE_ROW = 2;
    static final byte DELETE_ROW = 3;

    /** {@link #originOffset} of a record without a before-image. */
    static final int NO_ORIGIN = -1;

    private static final int WIRE_VARINT = 0;
    private static final int WIRE_FIXED64 = 1;
    private static final int WIRE_LENGTH = 2;
    private static final int WIRE_START_GROUP = 3;
    private static final int WIRE_END_GROUP = 4;
    private static final int WIRE_FIXED32 = 5;

    private final byte[] body;
    private final int length;
    private byte[] actions = new byte[16];
    private int[] recordOffsets = new int[16];
    private int[] recordLengths = new int[16];
    private int[] originOffsets = new int[16];
    private int[] originLengths = new int[16];
    private int count;
    private String nextToken;
    private Boolean mayMoreRecord;

    private RecordsResponse(byte[] body, int length) {
        this.body = body;
        this.length = length;
    }

    /** Reads the first {@code length} bytes of {@code body}, which it keeps (not copied). */
    static RecordsResponse parse(byte[] body, int length) throws IOException {
        RecordsResponse response = new RecordsResponse(body, length);
        response.readMessage();
        return response;
    }

    /** Reads all of {@code body}. */
    static RecordsResponse parse(byte[] body) throws IOException {
        return parse(body, body.length);
    }

    int size() {
        return count;
    }

    /** {@link #PUT_ROW}, {@link #UPDATE_ROW} or {@link #DELETE_ROW}. */
    byte action(int index) {
        return actions[index];
    }

    /** The body all offsets point into. */
    byte[] body() {
        return body;
    }

    /** The message's size in bytes, as the SDK's {@code getSerializedSize} counts it. */
    int serializedSize() {
        return length;
    }

    int recordOffset(int index) {
        return recordOffsets[index];
    }

    int recordLength(int index) {
        return recordLengths[index];
    }

    /** Where the record's before-image starts, or {@link #NO_ORIGIN}. */
    int originOffset(int index) {
        return originOffsets[index];
    }

    int originLength(int index) {
        return originLengths[index];
    }

    String nextToken() {
        return nextToken;
    }

    /** Whether the server set {@code may_more_record}. */
    boolean hasMayMoreRecord() {
        return mayMoreRecord != null;
    }

    boolean mayMoreRecord() {
        return mayMoreRecord != null && mayMoreRecord;
    }

    @Override
    public String toString() {
        return "RecordsResponse[" + count + " records, " + length + " bytes]";
    }

    private void readMessage() throws IOException {
        Cursor in = new Cursor(body, 0, length);
        while (in.more()) {
            int tag = in.tag();
            int field = tag >>> 3;
            int wire = tag & 7;
            if (field == 1 && wire == WIRE_LENGTH) {
                int size = in.length();
                readRecord(new Cursor(body, in.pos, in.pos + size));
                in.pos += size;
            } else if (field == 2 && wire == WIRE_LENGTH) {
                int size = in.length();
                nextToken = new String(body, in.pos, size, StandardCharsets.UTF_8);
                in.pos += size;
            } else if (field == 3 && wire == WIRE_VARINT) {
                mayMoreRecord = in.varint() != 0;
            } else {
                in.skip(field, wire);
            }
        }
        if (nextToken == null) {
            throw new IOException("Message missing required fields: next_token");
        }
    }

    private void readRecord(Cursor in) throws IOException {
        byte action = 0;
        int recordOffset = -1;
        int recordLength = 0;
        int originOffset = NO_ORIGIN;
        int originLength = 0;
        while (in.more()) {
            int tag = in.tag();
            int field = tag >>> 3;
            int wire = tag & 7;
            if (field == 1 && wire == WIRE_VARINT) {
                int value = (int) in.varint();
                if (value >= PUT_ROW && value <= DELETE_ROW) {
                    action = (byte) value; // an unknown value stays an unknown field
                }
            } else if (field == 2 && wire == WIRE_LENGTH) {
                recordLength = in.length();
                recordOffset = in.pos;
                in.pos += recordLength;
            } else if (field == 3 && wire == WIRE_LENGTH) {
                originLength = in.length();
                originOffset = in.pos;
                in.pos += originLength;
            } else {
                in.skip(field, wire);
            }
        }
        if (action == 0 || recordOffset < 0) {
            throw new IOException(
                    "Message missing required fields: records["
                            + count
                            + "]."
                            + (action == 0 ? "action_type" : "record"));
        }
        if (count == actions.length) {
            int size = count * 2;
            actions = Arrays.copyOf(actions, size);
            recordOffsets = Arrays.copyOf(recordOffsets, size);
            recordLengths = Arrays.copyOf(recordLengths, size);
            originOffsets = Arrays.copyOf(originOffsets, size);
            originLengths = Arrays.copyOf(originLengths, size);
        }
        actions[count] = action;
        recordOffsets[count] = recordOffset;
        recordLengths[count] = recordLength;
        originOffsets[count] = originOffset;
        originLengths[count] = originLength;
        count++;
    }

    /** A read position within {@code [pos, end)} of the body. */
    private static final class Cursor {
        private final byte[] bytes;
        private final int end;
        private int pos;

        Cursor(byte[] bytes, int pos, int end) {
            this.bytes = bytes;
            this.pos = pos;
            this.end = end;
        }

        boolean more() {
            return pos < end;
        }

        int tag() throws IOException {
            int tag = (int) varint();
            if (tag >>> 3 == 0) {
                throw new IOException("Protocol message contained an invalid tag (zero).");
            }
            return tag;
        }

        long varint() throws IOException {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos == end) {
                    throw truncated();
                }
                byte b = bytes[pos++];
                value |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new IOException("CodedInputStream encountered a malformed varint.");
        }

        /** A length prefix, which must fit in what is left. */
        int length() throws IOException {
            int size = (int) varint();
            if (size < 0) {
                throw new IOException(
                        "CodedInputStream encountered an embedded string or message which claimed"
                                + " to have negative size.");
            }
            if (size > end - pos) {
                throw truncated();
            }
            return size;
        }

        /** Skips a field this message does not know, as protobuf keeps it aside. */
        void skip(int field, int wire) throws IOException {
            switch (wire) {
                case WIRE_VARINT -> varint();
                case WIRE_FIXED64 -> advance(8);
                case WIRE_LENGTH -> advance(length());
                case WIRE_FIXED32 -> advance(4);
                case WIRE_START_GROUP -> skipGroup(field);
                case WIRE_END_GROUP ->
                        throw new IOException(
                                "Protocol message end-group tag did not match expected tag.");
                default -> throw new IOException("Protocol message tag had invalid wire type.");
            }
        }

        private void skipGroup(int field) throws IOException {
            while (true) {
                if (!more()) {
                    throw truncated();
                }
                int tag = tag();
                if ((tag & 7) == WIRE_END_GROUP) {
                    if (tag >>> 3 != field) {
                        throw new IOException(
                                "Protocol message end-group tag did not match expected tag.");
                    }
                    return;
                }
                skip(tag >>> 3, tag & 7);
            }
        }

        private void advance(int n) throws IOException {
            if (n > end - pos) {
                throw truncated();
            }
            pos += n;
        }

        private static IOException truncated() {
            return new IOException(
                    "While parsing a protocol message, the input ended unexpectedly in the middle"
                            + " of a field.");
        }
    }
}
