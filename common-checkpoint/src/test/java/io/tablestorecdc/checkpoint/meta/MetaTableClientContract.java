package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link MetaTableClient} must do, run against the in-memory fake and (as an ITCase)
 * against the SDK client on the emulator, so that the fake stays true to the server.
 */
abstract class MetaTableClientContract {

    /** A client over a table that does not exist yet. */
    protected abstract MetaTableClient newClient();

    protected MetaTableClient client;

    @BeforeEach
    void setUp() {
        client = newClient();
        assertThat(client.createTableIfMissing()).isTrue();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    private static MetaRow row(String batch, String channel, String value) {
        return MetaRow.of(new MetaRowKey("tunnel-1", batch, channel))
                .with("text", value)
                .with("number", 42L);
    }

    @Test
    void createTableIsIdempotent() {
        assertThat(client.createTableIfMissing()).isFalse();
    }

    @Test
    void putIfAbsentWritesOnceAndNeverOverwrites() {
        assertThat(client.putIfAbsent(row("b", "c", "first"))).isEqualTo(PutOutcome.WRITTEN);
        assertThat(client.putIfAbsent(row("b", "c", "second")))
                .isEqualTo(PutOutcome.ALREADY_EXISTS);
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "c")))
                .contains(row("b", "c", "first"));
    }

    @Test
    void getRoundTripsStringsAndIntegersAndReportsAbsentRows() {
        MetaRow row =
                MetaRow.of(new MetaRowKey("tunnel-1", "b", "c"))
                        .with("empty", "")
                        .with("max", Long.MAX_VALUE)
                        .with("min", Long.MIN_VALUE)
                        .with("unicode", "通道-ü");
        client.putIfAbsent(row);
        assertThat(client.get(row.key())).contains(row);
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "absent"))).isEmpty();
    }

    @Test
    void batchGetReadsEachKeyInOrderReportingAbsentRowsAndRefusesMoreThanAHundred() {
        client.putIfAbsent(row("b", "c1", "one"));
        client.putIfAbsent(row("b", "c3", "three"));
        List<MetaRowKey> keys = new ArrayList<>();
        for (int i = 0; i < MetaTableClient.MAX_BATCH_GET_ROWS; i++) {
            keys.add(new MetaRowKey("tunnel-1", "b", "c" + i));
        }

        List<Optional<MetaRow>> rows = client.getAll(keys);

        assertThat(rows).hasSize(100);
        assertThat(rows.get(1)).contains(row("b", "c1", "one"));
        assertThat(rows.get(3)).contains(row("b", "c3", "three"));
        assertThat(rows.get(2)).isEmpty();
        assertThat(rows.stream().filter(Optional::isPresent)).hasSize(2);
        keys.add(new MetaRowKey("tunnel-1", "b", "c100"));
        assertThatThrownBy(() -> client.getAll(keys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 100 rows");
    }

    @Test
    void batchPutReportsEachRowsOutcomeInOrder() {
        client.putIfAbsent(row("b", "c2", "old"));
        List<PutOutcome> outcomes =
                client.putAllIfAbsent(
                        List.of(
                                row("b", "c1", "new"),
                                row("b", "c2", "new"),
                                row("b", "c3", "new")));
        assertThat(outcomes)
                .containsExactly(PutOutcome.WRITTEN, PutOutcome.ALREADY_EXISTS, PutOutcome.WRITTEN);
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "c2")))
                .contains(row("b", "c2", "old"));
    }

    @Test
    void batchPutOfTwoHundredRowsWorksAndMoreIsRefused() {
        List<MetaRow> rows = new ArrayList<>();
        for (int i = 0; i < 201; i++) {
            rows.add(row("b", String.format("c%03d", i), "v"));
        }
        assertThat(client.putAllIfAbsent(rows.subList(0, 200))).containsOnly(PutOutcome.WRITTEN);
        assertThatThrownBy(() -> client.putAllIfAbsent(rows))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("200");
    }

    @Test
    void replaceIfChangesTheRowOnlyWhenTheColumnMatches() {
        client.putIfAbsent(row("b", "c", "v1"));
        MetaRow v2 = row("b", "c", "v2").with("number", 43L);
        assertThat(client.replaceIf(v2, "number", MetaValue.integer(41))).isFalse();
        assertThat(client.get(v2.key())).contains(row("b", "c", "v1"));
        assertThat(client.replaceIf(v2, "number", MetaValue.integer(42))).isTrue();
        assertThat(client.get(v2.key())).contains(v2);
        assertThat(client.replaceIf(row("b", "absent", "v"), "number", MetaValue.integer(42)))
                .isFalse();
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "absent"))).isEmpty();
    }

    @Test
    void replaceIfFailsWhenTheColumnIsMissing() {
        client.putIfAbsent(MetaRow.of(new MetaRowKey("tunnel-1", "b", "c")).with("text", "v"));
        assertThat(client.replaceIf(row("b", "c", "v2"), "number", MetaValue.integer(42)))
                .isFalse();
    }

    @Test
    void deleteAllRemovesPresentRowsAndIgnoresAbsentOnes() {
        client.putIfAbsent(row("b", "c1", "v"));
        client.putIfAbsent(row("b", "c2", "v"));
        client.deleteAll(
                List.of(
                        new MetaRowKey("tunnel-1", "b", "c1"),
                        new MetaRowKey("tunnel-1", "b", "x")));
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "c1"))).isEmpty();
        assertThat(client.get(new MetaRowKey("tunnel-1", "b", "c2"))).isPresent();
    }

    @Test
    void rangeReadReturnsOnlyThePrefixInKeyOrder() {
        client.putIfAbsent(row("a", "z", "other batch before"));
        client.putIfAbsent(row("b", "c2", "v"));
        client.putIfAbsent(row("b", "!manifest", "v"));
        client.putIfAbsent(row("b", "c1", "v"));
        client.putIfAbsent(row("bb", "c0", "longer batch"));
        client.putIfAbsent(
                MetaRow.of(new MetaRowKey("tunnel-2", "b", "c0")).with("text", "other tunnel"));
        RangePage page = client.readRange("tunnel-1", "b", Optional.empty(), 100);
        assertThat(page.rows())
                .extracting(r -> r.key().channelId())
                .containsExactly("!manifest", "c1", "c2");
        assertThat(page.nextChannelId()).isEmpty();
        assertThat(client.readRange("tunnel-1", "none", Optional.empty(), 100).rows()).isEmpty();
    }

    @Test
    void rangeReadPagesFromAnInclusiveStart() {
        for (int i = 0; i < 7; i++) {
            client.putIfAbsent(row("b", "c" + i, "v"));
        }
        RangePage first = client.readRange("tunnel-1", "b", Optional.empty(), 3);
        assertThat(first.rows())
                .extracting(r -> r.key().channelId())
                .containsExactly("c0", "c1", "c2");
        assertThat(first.nextChannelId()).contains("c3");
        List<String> all = new ArrayList<>();
        first.rows().forEach(r -> all.add(r.key().channelId()));
        Optional<String> next = first.nextChannelId();
        while (next.isPresent()) {
            RangePage page = client.readRange("tunnel-1", "b", next, 3);
            page.rows().forEach(r -> all.add(r.key().channelId()));
            next = page.nextChannelId();
        }
        assertThat(all).containsExactly("c0", "c1", "c2", "c3", "c4", "c5", "c6");
    }
}
