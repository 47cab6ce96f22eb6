package io.tablestorecdc.flink.source.deserializer;

import org.apache.flink.annotation.PublicEvolving;

/** A change record that does not fit the produced type (invariant 10: named, never silent). */
@PublicEvolving
public class InvalidChangeRecordException extends Exception {

    private static final long serialVersionUID = 1L;

    public InvalidChangeRecordException(String message) {
        super(message);
    }
}
