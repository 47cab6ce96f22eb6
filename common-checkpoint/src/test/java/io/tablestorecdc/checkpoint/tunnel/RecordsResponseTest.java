package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordsResponse} against the SDK's generated protobuf parser on the same bytes: random
 * messages with every field, repeated fields, unknown fields of every wire type (groups included)
 * at both levels, action types outside the enum; then every cut of them and random damage. Both
 * must read the same message, or both refuse it.
 */
class RecordsResponseTest {

    private static final long SEED = 20261207L;

    @Test
    void randomMessagesReadAsTheSdkReadsThem() throws IOException {
        Random random = new Random(SEED);
        for (int m = 0; m < 300; m++) {
            byte[] bytes = randomMessage(random);
            Optional<Message> sdk = sdk(bytes);
            assertThat(sdk).as("message %d", m).isPresent();
            assertThat(ours(bytes)).as("message %d", m).isEqualTo(sdk);
        }
    }

    @Test
    void everyCutOfAMessageIsReadOrRefusedAsTheSdkDoes() throws IOException {
        Random random = new Random(SEED + 1);
        int refused = 0;
        for (int m = 0; m < 20; m++) {
            byte[] bytes = randomMessage(random);
            for (int length = 0; length < bytes.length; length++) {
                byte[] cut = Arrays.copyOf(bytes, length);
                Optional<Message> sdk = sdk(cut);
                assertThat(ours(cut)).as("message %d cut at %d", m, length).isEqualTo(sdk);
                refused += sdk.isEmpty() ? 1 : 0;
            }
        }
        assertThat(refused).isPositive();
    }

    @Test
    void damagedMessagesAreReadOrRefusedAsTheSdkDoes() throws IOException {
        Random random = new Random(SEED + 2);
        int refused = 0;
        int read = 0;
        for (int m = 0; m < 200; m++) {
            byte[] bytes = randomMessage(random);
            for (int d = 0; d < 20; d++) {
                byte[] damaged = bytes.clone();
                int at = random.nextInt(damaged.length);
                damaged[at] = (byte) random.nextInt(256);
                Optional<Message> sdk = sdk(damaged);
                assertThat(ours(damaged)).as("message %d damaged at %d", m, at).isEqualTo(sdk);
                if (sdk.isPresent()) {
                    read++;
                } else {
                    refused++;
                }
            }
        }
        assertThat(refused).isGreaterThan(100);
        assertThat(read).isGreaterThan(100);
    }

    @Test
    void aMessageWithoutItsRequiredFieldsIsRefused() {
        Writer noToken = new Writer();
        noToken.varintField(3, 1);
        assertThatThrownBy(() -> RecordsResponse.parse(noToken.bytes()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("next_token");

        Writer unknownAction = new Writer();
        Writer record = new Writer();
        record.varintField(1, 7);
        record.bytesField(2, new byte[] {1, 2});
        unknownAction.bytesField(1, record.bytes());
        unknownAction.bytesField(2, "t".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> RecordsResponse.parse(unknownAction.bytes()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("records[0].action_type");
    }

    @Test
    void recordsAreSlicesOfTheBody() throws IOException {
        byte[] row = {10, 20, 30};
        byte[] body =
                TunnelServiceApi.ReadRecordsResponse.newBuilder()
                        .setNextToken("next")
                        .addRecords(
                                TunnelServiceApi.Record.newBuilder()
                                        .setActionType(TunnelServiceApi.ActionType.UPDATE_ROW)
                                        .setRecord(ByteString.copyFrom(row)))
                        .build()
                        .toByteArray();

        RecordsResponse response = RecordsResponse.parse(body);

        assertThat(response.body()).isSameAs(body);
        assertThat(response.serializedSize()).isEqualTo(body.length);
        assertThat(response.action(0)).isEqualTo(RecordsResponse.UPDATE_ROW);
        int at = response.recordOffset(0);
        assertThat(Arrays.copyOfRange(body, at, at + response.recordLength(0))).isEqualTo(row);
        assertThat(response.originOffset(0)).isEqualTo(RecordsResponse.NO_ORIGIN);
        assertThat(response.hasMayMoreRecord()).isFalse();
    }

    /** What both readers make of a message, compared as plain values. */
    private record Message(List<String> records, String nextToken, Optional<Boolean> mayMore) {}

    private static Optional<Message> sdk(byte[] bytes) {
        TunnelServiceApi.ReadRecordsResponse m;
        try {
            m = TunnelServiceApi.ReadRecordsResponse.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            return Optional.empty();
        }
        List<String> records = new ArrayList<>();
        for (TunnelServiceApi.Record r : m.getRecordsList()) {
            records.add(
                    r.getActionType().getNumber()
                            + ":"
                            + Arrays.toString(r.getRecord().toByteArray())
                            + ":"
                            + (r.hasOriginRecord()
                                    ? Arrays.toString(r.getOriginRecord().toByteArray())
                                    : "none"));
        }
        return Optional.of(
                new Message(
                        records,
                        m.getNextToken(),
                        m.hasMayMoreRecord()
                                ? Optional.of(m.getMayMoreRecord())
                                : Optional.empty()));
    }

    private static Optional<Message> ours(byte[] bytes) {
        RecordsResponse r;
        try {
            r = RecordsResponse.parse(bytes);
        } catch (IOException e) {
            return Optional.empty();
        }
        List<String> records = new ArrayList<>();
        for (int i = 0; i < r.size(); i++) {
            int at = r.recordOffset(i);
            int origin = r.originOffset(i);
            records.add(
                    r.action(i)
                            + ":"
                            + Arrays.toString(
                                    Arrays.copyOfRange(r.body(), at, at + r.recordLength(i)))
                            + ":"
                            + (origin == RecordsResponse.NO_ORIGIN
                                    ? "none"
                                    : Arrays.toString(
                                            Arrays.copyOfRange(
                                                    r.body(),
                                                    origin,
                                                    origin + r.originLength(i)))));
        }
        return Optional.of(
                new Message(
                        records,
                        r.nextToken(),
                        r.hasMayMoreRecord() ? Optional.of(r.mayMoreRecord()) : Optional.empty()));
    }

    /** A valid message: records, the token (sometimes twice), the flag, and unknown fields. */
    private static byte[] randomMessage(Random random) {
        Writer out = new Writer();
        int records = random.nextInt(6);
        boolean tokenWritten = false;
        for (int i = 0; i < records; i++) {
            out.bytesField(1, randomRecord(random));
            if (random.nextInt(4) == 0) {
                unknownField(out, random);
            }
            if (random.nextInt(5) == 0) {
                out.bytesField(2, randomText(random));
                tokenWritten = true;
            }
        }
        if (!tokenWritten || random.nextBoolean()) {
            out.bytesField(2, randomText(random));
        }
        if (random.nextBoolean()) {
            out.varintField(3, random.nextInt(3)); // 2 reads as true too
        }
        if (random.nextInt(3) == 0) {
            unknownField(out, random);
        }
        return out.bytes();
    }

    private static byte[] randomRecord(Random random) {
        Writer out = new Writer();
        if (random.nextInt(8) == 0) {
            out.varintField(1, 4 + random.nextInt(100)); // outside the enum: kept aside
        }
        out.varintField(1, 1 + random.nextInt(3));
        if (random.nextInt(6) == 0) {
            unknownField(out, random);
        }
        if (random.nextInt(8) == 0) {
            out.bytesField(2, randomBytes(random)); // replaced by the next one
        }
        out.bytesField(2, randomBytes(random));
        if (random.nextBoolean()) {
            out.bytesField(3, randomBytes(random));
        }
        return out.bytes();
    }

    private static void unknownField(Writer out, Random random) {
        int field = 4 + random.nextInt(20);
        switch (random.nextInt(5)) {
            case 0 -> out.varintField(field, random.nextLong());
            case 1 -> {
                out.tag(field, 1);
                out.raw(new byte[8]);
            }
            case 2 -> out.bytesField(field, randomBytes(random));
            case 3 -> {
                out.tag(field, 5);
                out.raw(new byte[4]);
            }
            default -> {
                out.tag(field, 3);
                out.varintField(field + 1, random.nextInt(1000));
                out.tag(field, 4);
            }
        }
    }

    private static byte[] randomBytes(Random random) {
        byte[] bytes =
                new byte[random.nextInt(4) == 0 ? 130 + random.nextInt(200) : random.nextInt(12)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] randomText(Random random) {
        String[] texts = {"", "next", "déjà vu ✓", "a token of some length " + random.nextInt()};
        return texts[random.nextInt(texts.length)].getBytes(StandardCharsets.UTF_8);
    }

    /** The protobuf wire format, written by hand so that tests can write what builders cannot. */
    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void tag(int field, int wire) {
            varint((long) field << 3 | wire);
        }

        void varintField(int field, long value) {
            tag(field, 0);
            varint(value);
        }

        void bytesField(int field, byte[] value) {
            tag(field, 2);
            varint(value.length);
            raw(value);
        }

        void raw(byte[] bytes) {
            out.writeBytes(bytes);
        }

        void varint(long value) {
            while ((value & ~0x7fL) != 0) {
                out.write((int) (value & 0x7f) | 0x80);
                value >>>= 7;
            }
            out.write((int) value);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
