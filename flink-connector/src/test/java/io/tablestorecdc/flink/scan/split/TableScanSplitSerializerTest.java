package io.tablestorecdc.flink.scan.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyRange;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableScanSplitSerializerTest {

    /** Version 1 bytes of {@link #READ}: a restore of an old checkpoint must keep reading them. */
    static final String READ_V1 =
            "000772616e67652d330000001f01000200016702000000016100016300000200016702"
                    + "0000000162000163010100000018010002000167020000000161000163030000000000000007";

    private static PrimaryKey key(PrimaryKeyValue g, PrimaryKeyValue n) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("g", g)
                .addPrimaryKeyColumn("c", n)
                .build();
    }

    static final KeyRange RANGE =
            new KeyRange(
                    key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.INF_MIN),
                    key(PrimaryKeyValue.fromString("b"), PrimaryKeyValue.INF_MAX));

    static final TableScanSplit READ =
            new TableScanSplit(
                    "range-3",
                    RANGE,
                    Optional.of(key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(7))));

    private final TableScanSplitSerializer serializer = new TableScanSplitSerializer();

    @Test
    void unreadAndPartlyReadSplitsRoundTrip() throws IOException {
        TableScanSplit unread = TableScanSplit.unread("range-0", RANGE);

        assertThat(roundTrip(unread)).isEqualTo(unread);
        assertThat(roundTrip(READ)).isEqualTo(READ);
        assertThat(roundTrip(READ).remaining())
                .contains(
                        new KeyRange(
                                key(PrimaryKeyValue.fromString("a"), PrimaryKeyValue.fromLong(8)),
                                RANGE.exclusiveEnd()));
    }

    @Test
    void version1GoldenBytesStillDeserializeAndAreWhatTheCurrentVersionWrites() throws IOException {
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(READ_V1))).isEqualTo(READ);
        assertThat(serializer.getVersion()).isEqualTo(TableScanSplitSerializer.VERSION_1);
        assertThat(HexFormat.of().formatHex(serializer.serialize(READ))).isEqualTo(READ_V1);
    }

    @Test
    void anUnknownVersionIsRefusedNamingTheFix() {
        byte[] bytes = HexFormat.of().parseHex(READ_V1);

        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown table scan split version 2")
                .hasMessageContaining("this build reads version 1")
                .hasMessageContaining("upgrade the connector to restore it");
    }

    @Test
    void trailingBytesAndCorruptKeysAreRefused() {
        byte[] bytes = HexFormat.of().parseHex(READ_V1);
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        byte[] badRange = bytes.clone();
        badRange[13] = 7; // the range's codec version

        assertThatThrownBy(() -> serializer.deserialize(1, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1 unexpected trailing bytes");
        assertThatThrownBy(() -> serializer.deserialize(1, badRange))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Corrupt table scan split range-3")
                .hasMessageContaining("format version 7");
    }

    private TableScanSplit roundTrip(TableScanSplit split) throws IOException {
        return serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
    }
}
