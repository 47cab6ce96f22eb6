package io.tablestorecdc.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tablestorecdc.e2e.orders.OrderChange;
import io.tablestorecdc.e2e.orders.OrderChange.Action;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EngineStatsTest {

    @Test
    void baseDataIsCaughtUpWhenEveryBaseRowWasApplied() {
        AtomicLong nanos = new AtomicLong(1_000);
        EngineStats stats = new EngineStats(3, nanos::get);
        stats.recordStart();
        stats.recordApplied(List.of(base("a"), base("b")));
        assertThat(stats.baseCatchUpSeconds()).isEmpty();

        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_500));
        stats.recordApplied(List.of(base("c"), stream("a")));

        assertThat(stats.baseRows()).isEqualTo(3);
        assertThat(stats.changes()).isEqualTo(4);
        assertThat(stats.baseCatchUpSeconds())
                .hasValueSatisfying(s -> assertThat(s).isCloseTo(1.5, within(1e-9)));
    }

    @Test
    void keepsTheLargestLag() {
        EngineStats stats = new EngineStats(0);
        assertThat(stats.maxLagMillis()).isEmpty();
        stats.recordLag(300);
        stats.recordLag(100);
        assertThat(stats.maxLagMillis()).contains(300L);
    }

    private static OrderChange base(String id) {
        return OrderChange.of(id, Action.PUT, "BaseData_p-0", 0).put("qty", 1L);
    }

    private static OrderChange stream(String id) {
        return OrderChange.of(id, Action.UPDATE, "p-0", 1).put("qty", 2L);
    }
}
