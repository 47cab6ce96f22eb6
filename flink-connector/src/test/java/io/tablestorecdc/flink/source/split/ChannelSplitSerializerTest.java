package io.tablestorecdc.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChannelSplitSerializerTest {

    private final ChannelSplitSerializer serializer = new ChannelSplitSerializer();

    @Test
    void roundTripsReadingAndFinishedSplits() throws IOException {
        ChannelSplit reading =
                new ChannelSplit("ch-1", ChannelType.STREAM, ChannelPosition.at("tok-A", 3));
        ChannelSplit finished =
                new ChannelSplit("ch-2", ChannelType.BASE_DATA, ChannelPosition.finished());

        assertThat(roundTrip(reading)).isEqualTo(reading);
        assertThat(roundTrip(finished)).isEqualTo(finished);
        assertThat(roundTrip(finished).isFinished()).isTrue();
    }

    @Test
    void roundTripsATokenLongerThanWriteUtfAllows() throws IOException {
        String token = "t".repeat(70_000);
        ChannelSplit split = new ChannelSplit("c", ChannelType.STREAM, ChannelPosition.at(token));

        assertThat(roundTrip(split).position().token()).isEqualTo(token);
    }

    @Test
    void version1GoldenBytesStillDeserialize() throws IOException {
        assertThat(serializer.deserialize(1, golden("channel-split-v1-reading.bin")))
                .isEqualTo(
                        new ChannelSplit(
                                "ch-1", ChannelType.STREAM, ChannelPosition.at("tok-A", 3)));
        assertThat(serializer.deserialize(1, golden("channel-split-v1-finished.bin")))
                .isEqualTo(
                        new ChannelSplit(
                                "ch-2", ChannelType.BASE_DATA, ChannelPosition.finished()));
    }

    @Test
    void currentVersionWritesTheGoldenBytes() throws IOException {
        ChannelSplit split =
                new ChannelSplit("ch-1", ChannelType.STREAM, ChannelPosition.at("tok-A", 3));

        assertThat(serializer.getVersion()).isEqualTo(ChannelSplitSerializer.VERSION_2);
        assertThat(serializer.serialize(split)).isEqualTo(golden("channel-split-v2-reading.bin"));
    }

    @Test
    void aSplitOfOneOfSeveralTablesKeepsItsTableAndId() throws IOException {
        ChannelSplit split =
                new ChannelSplit(
                        Optional.of("orders"),
                        "ch-1",
                        ChannelType.STREAM,
                        ChannelPosition.at("tok-A", 3));

        assertThat(serializer.serialize(split)).isEqualTo(golden("channel-split-v2-table.bin"));
        ChannelSplit read = roundTrip(split);
        assertThat(read).isEqualTo(split);
        assertThat(read.splitId()).isEqualTo("orders/ch-1");
        assertThat(read.table()).contains("orders");
        assertThat(read.withoutTable().splitId()).isEqualTo("ch-1");
        assertThat(ChannelSplit.tableOf("orders/ch/1")).isEqualTo("orders");
        assertThat(ChannelSplit.channelOf("orders/ch/1")).isEqualTo("ch/1");
        assertThatThrownBy(() -> ChannelSplit.tableOf("ch-1"))
                .hasMessageContaining("names no table");
    }

    @Test
    void rejectsTrailingBytes() throws IOException {
        byte[] bytes = golden("channel-split-v1-finished.bin");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);

        assertThatThrownBy(() -> serializer.deserialize(1, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1 unexpected trailing bytes");
    }

    @Test
    void rejectsUnknownVersionsAndTypeCodes() throws IOException {
        byte[] bytes = golden("channel-split-v1-finished.bin");
        assertThatThrownBy(() -> serializer.deserialize(3, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown channel split version 3")
                .hasMessageContaining("upgrade the connector");

        byte[] badType = bytes.clone();
        badType[10] = 'X'; // "base" -> "baXe"
        assertThatThrownBy(() -> serializer.deserialize(1, badType))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown channel type code 'baXe'");
    }

    private ChannelSplit roundTrip(ChannelSplit split) throws IOException {
        return serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
    }

    static byte[] golden(String name) throws IOException {
        try (InputStream in =
                ChannelSplitSerializerTest.class.getResourceAsStream("/golden/" + name)) {
            assertThat(in).as("golden file %s", name).isNotNull();
            return in.readAllBytes();
        }
    }
}
