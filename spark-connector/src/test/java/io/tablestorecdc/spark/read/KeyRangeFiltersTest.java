package io.tablestorecdc.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Or;
import org.junit.jupiter.api.Test;

class KeyRangeFiltersTest {

    private static final List<PrimaryKeyColumn> KEY =
            List.of(
                    new PrimaryKeyColumn("region", CellValue.Type.STRING),
                    new PrimaryKeyColumn("n", CellValue.Type.INTEGER),
                    new PrimaryKeyColumn("b", CellValue.Type.BINARY));

    private static KeyRangeFilters.Pushed translate(Filter... filters) {
        return KeyRangeFilters.translate(filters, KEY);
    }

    private static PrimaryKeyValue s(String v) {
        return PrimaryKeyValue.fromString(v);
    }

    private static PrimaryKeyValue l(long v) {
        return PrimaryKeyValue.fromLong(v);
    }

    @Test
    void equalitiesOnTheLeadingColumnsThenARangeOnTheNext() {
        Filter eq = new EqualTo("region", "r1");
        Filter ge = new GreaterThanOrEqual("n", 10L);
        Filter lt = new LessThan("n", 20L);
        Filter other = new GreaterThan("qty", 5L);

        KeyRangeFilters.Pushed pushed = translate(other, new And(eq, ge), lt, new IsNotNull("n"));

        assertThat(pushed.bounds())
                .isEqualTo(
                        new KeyBounds(
                                List.of(s("r1")),
                                Optional.of(new Bound(l(10), true)),
                                Optional.of(new Bound(l(20), false))));
        assertThat(pushed.used()).containsExactly(eq, ge, lt);
    }

    @Test
    void equalitiesOnEveryColumnAreAFullKey() {
        byte[] b = {1, 2};
        KeyRangeFilters.Pushed pushed =
                translate(new EqualTo("b", b), new EqualTo("n", 3), new EqualTo("region", "x"));

        assertThat(pushed.bounds().prefix()).hasSize(3);
        assertThat(pushed.bounds().prefix().get(1)).isEqualTo(l(3));
        assertThat(pushed.bounds().lower()).isEmpty();
        assertThat(pushed.used()).hasSize(3);
    }

    @Test
    void aColumnAfterAGapBoundsNothing() {
        KeyRangeFilters.Pushed pushed = translate(new EqualTo("n", 3L), new LessThan("n", 9L));

        assertThat(pushed.bounds().isAll()).isTrue();
        assertThat(pushed.used()).isEmpty();
    }

    @Test
    void theTightestBoundOfSeveralIsKeptAndExclusiveWinsATie() {
        Filter loose = new GreaterThan("region", "a");
        Filter tight = new GreaterThanOrEqual("region", "m");
        Filter tie = new GreaterThan("region", "m");
        Filter upper1 = new LessThanOrEqual("region", "x");
        Filter upper2 = new LessThan("region", "z");

        KeyRangeFilters.Pushed pushed = translate(loose, tight, tie, upper2, upper1);

        assertThat(pushed.bounds().lower()).contains(new Bound(s("m"), false));
        assertThat(pushed.bounds().upper()).contains(new Bound(s("x"), true));
        assertThat(pushed.used()).containsExactly(tie, upper1);
    }

    @Test
    void valuesOfAnotherTypeOrNullAndDisjunctionsAreNotUsed() {
        KeyRangeFilters.Pushed pushed =
                translate(
                        new EqualTo("region", 5L),
                        new EqualTo("region", null),
                        new Or(new EqualTo("region", "a"), new EqualTo("region", "b")),
                        new GreaterThan("region", 1.5));

        assertThat(pushed.bounds().isAll()).isTrue();
        assertThat(pushed.used()).isEmpty();
    }

    @Test
    void integerFilterValuesOfAnyWidthBoundAnIntegerColumn() {
        KeyRangeFilters.Pushed pushed =
                translate(new EqualTo("region", "r"), new GreaterThan("n", (short) 4));

        assertThat(pushed.bounds().lower()).contains(new Bound(l(4), false));
    }

    @Test
    void aQuotedColumnNameMatchesItsColumn() {
        List<PrimaryKeyColumn> dotted = List.of(new PrimaryKeyColumn("a.b", CellValue.Type.STRING));

        KeyRangeFilters.Pushed pushed =
                KeyRangeFilters.translate(new Filter[] {new EqualTo("`a.b`", "v")}, dotted);

        assertThat(pushed.bounds().prefix()).containsExactly(s("v"));
    }
}
