package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import org.junit.jupiter.api.Test;

class KeyRangeCodecTest {

    private static PrimaryKey key(PrimaryKeyValue a, PrimaryKeyValue b, PrimaryKeyValue c) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("s", a)
                .addPrimaryKeyColumn("i", b)
                .addPrimaryKeyColumn("b", c)
                .build();
    }

    @Test
    void everyKindOfKeyValueSurvivesTheRoundTrip() {
        KeyRange range =
                new KeyRange(
                        key(
                                PrimaryKeyValue.fromString("zürich \uD83D\uDE00"),
                                PrimaryKeyValue.fromLong(Long.MIN_VALUE),
                                PrimaryKeyValue.fromBinary(new byte[] {0, -1, 7})),
                        key(
                                PrimaryKeyValue.INF_MAX,
                                PrimaryKeyValue.INF_MIN,
                                PrimaryKeyValue.INF_MAX));

        KeyRange decoded = KeyRangeCodec.decode(KeyRangeCodec.encode(range));

        assertThat(decoded.inclusiveStart().compareTo(range.inclusiveStart())).isZero();
        assertThat(decoded.exclusiveEnd().compareTo(range.exclusiveEnd())).isZero();
        assertThat(decoded.inclusiveStart()).isEqualTo(range.inclusiveStart());
        assertThat(decoded.exclusiveEnd().getPrimaryKeyColumn(1).getValue().isInfMin()).isTrue();
    }

    @Test
    void bytesOfAnotherVersionAreRefusedNamingTheVersions() {
        byte[] bytes =
                KeyRangeCodec.encode(
                        new KeyRange(
                                key(
                                        PrimaryKeyValue.INF_MIN,
                                        PrimaryKeyValue.INF_MIN,
                                        PrimaryKeyValue.INF_MIN),
                                key(
                                        PrimaryKeyValue.INF_MAX,
                                        PrimaryKeyValue.INF_MAX,
                                        PrimaryKeyValue.INF_MAX)));
        bytes[0] = 2;

        assertThatThrownBy(() -> KeyRangeCodec.decode(bytes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "A key range of format version 2 cannot be read by this connector, which reads version 1");
    }

    @Test
    void truncatedBytesAreRefused() {
        byte[] bytes =
                KeyRangeCodec.encode(
                        new KeyRange(
                                key(
                                        PrimaryKeyValue.fromString("a"),
                                        PrimaryKeyValue.fromLong(1),
                                        PrimaryKeyValue.INF_MIN),
                                key(
                                        PrimaryKeyValue.INF_MAX,
                                        PrimaryKeyValue.INF_MAX,
                                        PrimaryKeyValue.INF_MAX)));
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 3);

        assertThatThrownBy(() -> KeyRangeCodec.decode(cut))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Bytes that are not a key range");
    }

    @Test
    void aKeyRoundTripsAndAnotherVersionIsRefused() {
        PrimaryKey key =
                key(
                        PrimaryKeyValue.fromString("a"),
                        PrimaryKeyValue.fromLong(3),
                        PrimaryKeyValue.fromBinary(new byte[] {1}));
        byte[] bytes = KeyRangeCodec.encodeKey(key);

        assertThat(KeyRangeCodec.decodeKey(bytes)).isEqualTo(key);
        bytes[0] = 3;
        assertThatThrownBy(() -> KeyRangeCodec.decodeKey(bytes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("A primary key of format version 3 cannot be read");
    }
}
