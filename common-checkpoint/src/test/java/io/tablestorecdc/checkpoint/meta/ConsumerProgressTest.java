package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The consumer's catch-up report: its row, its writes, and what it says about a channel. */
class ConsumerProgressTest {

    private final InMemoryMetaTableClient client = new InMemoryMetaTableClient();
    private final ManualClock wall = new ManualClock(1_700_000_000_000L);
    private final MetaTable meta = new MetaTable(client, wall);
    private final TunnelMeta store = meta.tunnel("tunnel");

    private static final ChannelPosition AT_T1 = ChannelPosition.at("t1 with space", 3);

    @Test
    void aReportReadsBackAsWritten() {
        ConsumerProgress report =
                new ConsumerProgress(
                        "holder-1",
                        wall.millis(),
                        Map.of("p-1", AT_T1, "p-2", ChannelPosition.at("t2")));

        assertThat(store.reportProgress(report)).isTrue();

        assertThat(store.progress()).contains(report);
        assertThat(meta.tunnel("other").progress()).isEmpty();
    }

    @Test
    void aFinishedPositionIsNotReported() {
        store.reportProgress(
                new ConsumerProgress(
                        "h",
                        wall.millis(),
                        Map.of("p-1", ChannelPosition.finished(), "p-2", AT_T1)));

        assertThat(store.progress().orElseThrow().caughtUp()).containsOnlyKeys("p-2");
    }

    @Test
    void theHolderRewritesItsReportWithOneConditionalWrite() {
        store.reportProgress(new ConsumerProgress("h", wall.millis(), Map.of()));
        client.resetCounts();

        store.reportProgress(new ConsumerProgress("h", wall.millis(), Map.of("p", AT_T1)));

        assertThat(client.totalRequests()).isEqualTo(1);
        assertThat(store.progress().orElseThrow().caughtUpAt("p")).contains(AT_T1);
    }

    @Test
    void aNewRunReplacesTheReportOfAnEarlierOne() {
        store.reportProgress(new ConsumerProgress("old", 1, Map.of("p", AT_T1)));

        boolean written = store.reportProgress(new ConsumerProgress("new", 2, Map.of()));

        assertThat(written).isTrue();
        assertThat(store.progress().orElseThrow().holder()).isEqualTo("new");
    }

    @Test
    void aRetriedWriteWhoseResponseWasLostStillCounts() {
        client.echoWrites(true);
        store.reportProgress(new ConsumerProgress("h", 1, Map.of()));

        assertThat(store.reportProgress(new ConsumerProgress("h", 2, Map.of("p", AT_T1)))).isTrue();
        assertThat(store.progress().orElseThrow().reportedAtMillis()).isEqualTo(2);
    }

    @Test
    void aChannelIsCaughtUpOnlyAtThePositionItWasFoundDrained() {
        ConsumerProgress report = new ConsumerProgress("h", 1, Map.of("p", AT_T1));

        assertThat(report.isCaughtUp("p", AT_T1)).isTrue();
        assertThat(report.isCaughtUp("p", ChannelPosition.at("t1 with space", 2))).isFalse();
        assertThat(report.isCaughtUp("q", AT_T1)).isFalse();
    }

    @Test
    void aReportSpeaksOnlyForItsHolderWhileFresh() {
        OwnerLease lease = new OwnerLease("tunnel", "query", "h", 3, wall.millis() + 60_000);
        ConsumerProgress report = new ConsumerProgress("h", wall.millis(), Map.of());
        Duration freshness = Duration.ofSeconds(40);

        assertThat(report.isCurrentFor(lease, wall.instant(), freshness)).isTrue();
        assertThat(
                        report.isCurrentFor(
                                new OwnerLease("tunnel", "query", "other", 4, 0),
                                wall.instant(),
                                freshness))
                .isFalse();
        wall.advance(freshness.toMillis());
        assertThat(report.isCurrentFor(lease, wall.instant(), freshness)).isFalse();
    }

    @Test
    void theReportIsOneOfTheTunnelsRowsAndIsDeletedWithThem() {
        store.reportProgress(new ConsumerProgress("h", 1, Map.of("p", AT_T1)));

        assertThat(meta.tunnelRows("tunnel").ownerRows()).isEqualTo(1);
        meta.deleteTunnelRows("tunnel");

        assertThat(store.progress()).isEmpty();
    }

    @Test
    void aCorruptReportNamesTheRowAndColumn() {
        client.putRaw(
                MetaRowFormat.progressRow("tunnel", new ConsumerProgress("h", 1, Map.of()))
                        .with(MetaRowFormat.COL_CAUGHT_UP, "p-1 notanumber t1\n")
                        .with(MetaRowFormat.COL_CAUGHT_UP_COUNT, 1));

        assertThatThrownBy(() -> store.progress())
                .isInstanceOf(MetaFormatException.class)
                .hasMessageContaining("!progress")
                .hasMessageContaining("caught_up");
    }
}
