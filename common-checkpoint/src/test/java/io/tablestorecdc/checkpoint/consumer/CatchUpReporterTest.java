package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the catch-up report is written, and what it holds. */
class CatchUpReporterTest {

    private final ManualClock wall = new ManualClock(1_700_000_000_000L);
    private final AtomicLong nanos = new AtomicLong();
    private final TunnelMeta store =
            new MetaTable(new InMemoryMetaTableClient(), wall).tunnel("tunnel");
    private final CatchUpReporter reporter =
            new CatchUpReporter(store, "holder", wall::millis, nanos::get);

    private static final ChannelPosition P = ChannelPosition.at("t", 0);

    @Test
    void nothingIsWrittenBeforeAChannelIsCaughtUp() {
        reporter.behind("p-1");
        reporter.flushIfDue();

        assertThat(store.progress()).isEmpty();
        assertThat(reporter.writeAttempts()).isZero();
    }

    @Test
    void theFirstCaughtUpChannelIsWrittenAtOnce() {
        reporter.caughtUp("p-1", P);
        reporter.flushIfDue();

        assertThat(store.progress().orElseThrow().caughtUpAt("p-1")).contains(P);
        assertThat(store.progress().orElseThrow().holder()).isEqualTo("holder");
    }

    @Test
    void aChangeIsWrittenAtMostOncePerInterval() {
        reporter.caughtUp("p-1", P);
        reporter.flushIfDue();
        reporter.caughtUp("p-2", P);
        reporter.flushIfDue();

        assertThat(store.progress().orElseThrow().caughtUp()).containsOnlyKeys("p-1");

        advance(CatchUpReporter.MIN_INTERVAL.toMillis());
        reporter.flushIfDue();
        assertThat(store.progress().orElseThrow().caughtUp()).containsOnlyKeys("p-1", "p-2");
        assertThat(reporter.writeAttempts()).isEqualTo(2);
    }

    @Test
    void anUnchangedReportIsNotRewrittenUntilItsRefresh() {
        reporter.caughtUp("p-1", P);
        reporter.flushIfDue();
        reporter.caughtUp("p-1", P); // the same position again: no change
        advance(CatchUpReporter.MIN_INTERVAL.toMillis());
        reporter.flushIfDue();
        assertThat(reporter.writeAttempts()).isEqualTo(1);

        advance(CatchUpReporter.REFRESH_EVERY.toMillis());
        reporter.flushIfDue();

        assertThat(reporter.writeAttempts()).isEqualTo(2);
        assertThat(store.progress().orElseThrow().reportedAtMillis()).isEqualTo(wall.millis());
    }

    @Test
    void aChannelFoundBehindOrFinishedLeavesTheReport() {
        reporter.caughtUp("p-1", P);
        reporter.caughtUp("p-2", P);
        reporter.flushIfDue();
        reporter.behind("p-1");
        reporter.caughtUp("p-2", ChannelPosition.finished());
        advance(CatchUpReporter.MIN_INTERVAL.toMillis());
        reporter.flushIfDue();

        assertThat(store.progress().orElseThrow().caughtUp()).isEmpty();
    }

    @Test
    void aFailedWriteIsRetriedAtTheNextFlush() {
        InMemoryMetaTableClient failing = new InMemoryMetaTableClient();
        TunnelMeta failingStore = new MetaTable(failing, wall).tunnel("tunnel");
        CatchUpReporter r = new CatchUpReporter(failingStore, "holder", wall::millis, nanos::get);
        r.caughtUp("p-1", P);
        failing.crashAfter(0);
        r.flushIfDue();
        failing.recover();
        advance(CatchUpReporter.MIN_INTERVAL.toMillis());

        r.flushIfDue();

        assertThat(failingStore.progress().orElseThrow().caughtUpAt("p-1")).contains(P);
    }

    private void advance(long millis) {
        wall.advance(millis);
        nanos.addAndGet(millis * 1_000_000L);
    }
}
