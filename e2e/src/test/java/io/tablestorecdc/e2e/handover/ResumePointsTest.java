package io.tablestorecdc.e2e.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.orders.OrderChange;
import org.junit.jupiter.api.Test;

class ResumePointsTest {

    @Test
    void aSecondConsumerThatResumedInsideTheFirstOnesTailIsFine() {
        DeliveryLog first = log("first", "a", 1, 2, 3, 4);
        DeliveryLog second = log("second", "a", 3, 4, 5);

        assertThat(ResumePoints.violations(first, second)).isEmpty();
        assertThat(ResumePoints.overlap(first, second, "a"))
                .extracting(c -> c.seqRow)
                .containsExactly(3, 4);
    }

    @Test
    void repeatsThatAreNotTheFirstOnesTailAreReported() {
        DeliveryLog first = log("first", "a", 1, 2, 3, 4);
        DeliveryLog second = log("second", "a", 2, 5);

        assertThat(ResumePoints.violations(first, second))
                .singleElement()
                .asString()
                .startsWith("a: the 1 changes read by both are not the tail of first");
    }

    @Test
    void repeatsOutOfOrderAreReported() {
        DeliveryLog first = log("first", "a", 1, 2, 3);
        DeliveryLog second = log("second", "a", 3, 2, 4);

        assertThat(ResumePoints.violations(first, second)).hasSize(1);
    }

    @Test
    void channelsAreJudgedOnTheirOwn() {
        DeliveryLog first = log("first", "a", 1, 2);
        log(first, "b", 7, 8);
        DeliveryLog second = log("second", "b", 8, 9);
        log(second, "a", 3);

        assertThat(ResumePoints.violations(first, second)).isEmpty();
    }

    private static DeliveryLog log(String engine, String channel, int... rows) {
        return log(new DeliveryLog(engine), channel, rows);
    }

    private static DeliveryLog log(DeliveryLog log, String channel, int... rows) {
        for (int row : rows) {
            OrderChange change = OrderChange.of("order", OrderChange.Action.PUT, channel, 1L);
            log.add(SeenChange.of(change, 1, 1L, row));
        }
        return log;
    }
}
