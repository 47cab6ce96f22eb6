package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyBounds.Bound;
import io.tablestorecdc.checkpoint.table.KeyComparison.Op;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyBoundsDeriveTest {

    private static final List<PrimaryKeySchema> SCHEMA =
            List.of(
                    new PrimaryKeySchema("g", PrimaryKeyType.STRING),
                    new PrimaryKeySchema("n", PrimaryKeyType.INTEGER),
                    new PrimaryKeySchema("b", PrimaryKeyType.BINARY));

    private static KeyComparison c(String column, Op op, String value) {
        return new KeyComparison(column, op, PrimaryKeyValue.fromString(value));
    }

    private static KeyComparison c(String column, Op op, long value) {
        return new KeyComparison(column, op, PrimaryKeyValue.fromLong(value));
    }

    private static Optional<Bound> bound(long value, boolean inclusive) {
        return Optional.of(new Bound(PrimaryKeyValue.fromLong(value), inclusive));
    }

    private static KeyBounds.Derived derive(KeyComparison... comparisons) {
        return KeyBounds.derive(SCHEMA, List.of(comparisons));
    }

    @Test
    void noComparisonsBoundNothing() {
        assertThat(derive().bounds().isAll()).isTrue();
        assertThat(derive().used()).isEmpty();
    }

    @Test
    void equalitiesOnLeadingColumnsThenARangeOnTheNext() {
        KeyComparison g = c("g", Op.EQUAL, "a");
        KeyComparison low = c("n", Op.GREATER_OR_EQUAL, 3);
        KeyComparison high = c("n", Op.LESS, 9);

        KeyBounds.Derived derived = derive(high, g, low);

        assertThat(derived.bounds())
                .isEqualTo(
                        new KeyBounds(
                                List.of(PrimaryKeyValue.fromString("a")),
                                bound(3, true),
                                bound(9, false)));
        assertThat(derived.used()).containsExactlyInAnyOrder(g, low, high);
        assertThat(derived.bounds().describe(SCHEMA)).isEqualTo("g = 'a' AND n >= 3 AND n < 9");
    }

    @Test
    void aRangeOnALaterColumnWithoutEqualitiesBeforeItIsNotUsed() {
        KeyComparison n = c("n", Op.GREATER, 3);

        KeyBounds.Derived derived = derive(n);

        assertThat(derived.bounds().isAll()).isTrue();
        assertThat(derived.used()).isEmpty();
    }

    @Test
    void aRangeOnTheFirstColumnEndsTheBounds() {
        KeyComparison g = c("g", Op.LESS_OR_EQUAL, "m");
        KeyComparison n = c("n", Op.EQUAL, 3);

        KeyBounds.Derived derived = derive(g, n);

        assertThat(derived.bounds().prefix()).isEmpty();
        assertThat(derived.bounds().upper())
                .contains(new Bound(PrimaryKeyValue.fromString("m"), true));
        assertThat(derived.bounds().lower()).isEmpty();
        assertThat(derived.used()).containsExactly(g);
    }

    @Test
    void theClosestOfSeveralBoundsIsTakenAndExclusiveWinsATie() {
        KeyComparison low1 = c("g", Op.GREATER_OR_EQUAL, "b");
        KeyComparison low2 = c("g", Op.GREATER, "d");
        KeyComparison low3 = c("g", Op.GREATER_OR_EQUAL, "d");
        KeyComparison high1 = c("g", Op.LESS, "x");
        KeyComparison high2 = c("g", Op.LESS_OR_EQUAL, "k");

        KeyBounds bounds = derive(low1, low2, low3, high1, high2).bounds();

        assertThat(bounds.lower()).contains(new Bound(PrimaryKeyValue.fromString("d"), false));
        assertThat(bounds.upper()).contains(new Bound(PrimaryKeyValue.fromString("k"), true));
    }

    @Test
    void comparisonsOfTheWrongTypeOrOnUnknownColumnsAreNotUsed() {
        KeyComparison wrongType = c("g", Op.EQUAL, 7);
        KeyComparison unknown = c("zz", Op.EQUAL, "a");

        KeyBounds.Derived derived = derive(wrongType, unknown);

        assertThat(derived.bounds().isAll()).isTrue();
        assertThat(derived.used()).isEmpty();
    }

    @Test
    void aRangeOnAnEqualityColumnIsLeftToTheEngine() {
        KeyComparison g = c("g", Op.EQUAL, "a");
        KeyComparison alsoG = c("g", Op.GREATER, "0");

        KeyBounds.Derived derived = derive(g, alsoG);

        assertThat(derived.bounds().prefix()).containsExactly(PrimaryKeyValue.fromString("a"));
        assertThat(derived.bounds().lower()).isEmpty();
        assertThat(derived.used()).containsExactly(g);
    }

    @Test
    void flippedOperatorsMirror() {
        assertThat(Op.LESS.flipped()).isEqualTo(Op.GREATER);
        assertThat(Op.LESS_OR_EQUAL.flipped()).isEqualTo(Op.GREATER_OR_EQUAL);
        assertThat(Op.GREATER.flipped()).isEqualTo(Op.LESS);
        assertThat(Op.GREATER_OR_EQUAL.flipped()).isEqualTo(Op.LESS_OR_EQUAL);
        assertThat(Op.EQUAL.flipped()).isEqualTo(Op.EQUAL);
    }
}
