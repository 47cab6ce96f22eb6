package io.tablestorecdc.e2e.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PrefixedTablesTest {

    @Test
    void aNameUnderARunsPrefixTellsWhenThatRunStarted() {
        assertThat(PrefixedTables.startedAt("tsc_ri_20261202163813_h3jm_orders_spark"))
                .contains(Instant.parse("2026-12-02T16:38:13Z"));
        assertThat(PrefixedTables.startedAt("tsc_ri_20261202163813_h3jm_meta"))
                .contains(Instant.parse("2026-12-02T16:38:13Z"));
    }

    @Test
    void otherNamesAreNoRunsLeftovers() {
        assertThat(PrefixedTables.startedAt("orders")).isEmpty();
        assertThat(PrefixedTables.startedAt("tsc_ri_orders")).isEmpty();
        assertThat(PrefixedTables.startedAt("tsc_ri_20261399999999_h3jm_orders")).isEmpty();
        assertThat(PrefixedTables.startedAt("tablestore_cdc_meta")).isEmpty();
    }
}
