package io.tablestorecdc.e2e.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.e2e.orders.NetChange.Kind;
import io.tablestorecdc.e2e.orders.OrderChange.Action;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NetChangeTest {

    @Test
    void anUpdateAloneTouchesOnlyItsColumns() {
        NetChange net = NetChange.of(update().put("status", "PAID").delete("note"));

        assertThat(net)
                .isEqualTo(new NetChange(Kind.PATCH, Map.of("status", "PAID"), Set.of("note")));
    }

    @Test
    void updatesAfterAPutGiveTheWholeNewRow() {
        NetChange net =
                NetChange.of(put().put("status", "NEW").put("note", "gift").put("qty", 1L))
                        .then(update().put("status", "PAID").delete("note"));

        assertThat(net)
                .isEqualTo(
                        new NetChange(Kind.REPLACE, Map.of("status", "PAID", "qty", 1L), Set.of()));
    }

    @Test
    void twoUpdatesMergeAndALaterPutOfAColumnCancelsItsDelete() {
        NetChange net =
                NetChange.of(update().delete("note").put("qty", 2L))
                        .then(update().put("note", "call").put("status", "PACKED"))
                        .then(update().delete("qty"));

        assertThat(net)
                .isEqualTo(
                        new NetChange(
                                Kind.PATCH,
                                Map.of("note", "call", "status", "PACKED"),
                                Set.of("qty")));
    }

    @Test
    void anUpdateAfterADeleteCreatesARowOfItsPutsOnly() {
        NetChange net = NetChange.of(delete()).then(update().put("status", "NEW").delete("note"));

        assertThat(net).isEqualTo(new NetChange(Kind.REPLACE, Map.of("status", "NEW"), Set.of()));
    }

    @Test
    void aRowLeftWithoutColumnsIsDeleted() {
        NetChange net = NetChange.of(put().put("note", "x")).then(update().delete("note"));

        assertThat(net.kind()).isEqualTo(Kind.DELETE);
    }

    @Test
    void aPutOrDeleteReplacesWhateverCameBefore() {
        assertThat(NetChange.of(update().put("qty", 1L)).then(delete()).kind())
                .isEqualTo(Kind.DELETE);
        assertThat(NetChange.of(delete()).then(put().put("qty", 3L)))
                .isEqualTo(new NetChange(Kind.REPLACE, Map.of("qty", 3L), Set.of()));
    }

    private static OrderChange put() {
        return OrderChange.of("order-1", Action.PUT, "p-0", 1);
    }

    private static OrderChange update() {
        return OrderChange.of("order-1", Action.UPDATE, "p-0", 2);
    }

    private static OrderChange delete() {
        return OrderChange.of("order-1", Action.DELETE, "p-0", 3);
    }
}
