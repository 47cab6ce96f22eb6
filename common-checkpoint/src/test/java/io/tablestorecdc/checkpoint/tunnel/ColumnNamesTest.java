package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ColumnNamesTest {

    private final ColumnNames names = new ColumnNames();

    @Test
    void anEqualNameAtTheSamePositionGivesTheFirstInstance() {
        String first = fresh("qty");

        assertThat(names.of(0, first)).isSameAs(first);
        assertThat(names.of(0, fresh("qty"))).isSameAs(first);
        assertThat(names.of(0, fresh("qty"))).isSameAs(first);
    }

    @Test
    void aDifferentNameAtAPositionIsItsOwnNameAndTheOldOneStaysShared() {
        String qty = fresh("qty");
        String price = fresh("price");
        names.of(1, qty);

        assertThat(names.of(1, price)).isSameAs(price);
        assertThat(names.of(1, fresh("qty"))).isEqualTo("qty").isSameAs(qty);
        assertThat(names.of(1, fresh("price"))).isEqualTo("price").isSameAs(price);
    }

    @Test
    void theSameNameAtAnotherPositionIsTheSameInstance() {
        String qty = fresh("qty");
        names.of(0, qty);

        assertThat(names.of(3, fresh("qty"))).isSameAs(qty);
    }

    @Test
    void positionsBeyondTheInitialCapacityWork() {
        String[] firsts = new String[40];
        for (int position = 0; position < firsts.length; position++) {
            firsts[position] = fresh("c" + position);
            assertThat(names.of(position, firsts[position])).isSameAs(firsts[position]);
        }
        String far = fresh("far");
        assertThat(names.of(1000, far)).isSameAs(far);

        for (int position = 0; position < firsts.length; position++) {
            assertThat(names.of(position, fresh("c" + position)))
                    .as("position %d", position)
                    .isSameAs(firsts[position]);
        }
        assertThat(names.of(1000, fresh("far"))).isSameAs(far);
        assertThat(names.of(9, fresh("far"))).isSameAs(far);
    }

    @Test
    void aFirstLookupFarOutGrowsEnough() {
        String deep = fresh("deep");

        assertThat(names.of(17, deep)).isSameAs(deep);
        assertThat(names.of(17, fresh("deep"))).isSameAs(deep);
    }

    @Test
    void positionalAndPlainLookupsShareInstances() {
        String byPosition = fresh("a");
        String plain = fresh("b");

        names.of(2, byPosition);
        names.of(plain);

        assertThat(names.of(fresh("a"))).isSameAs(byPosition);
        assertThat(names.of(5, fresh("b"))).isSameAs(plain);
        assertThat(names.of(5, fresh("b"))).isSameAs(plain);
    }

    /** An equal string that is not the same instance, as the SDK decodes each name afresh. */
    private static String fresh(String name) {
        return new String(name.toCharArray());
    }
}
