package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;

/** A user's provider as option {@code credentials.provider} names it: tests set what it yields. */
public final class SettableCredentialsProvider implements CredentialsProvider {

    static volatile ServiceCredentials next = new DefaultCredentials("unset", "unset");

    @Override
    public void setCredentials(ServiceCredentials credentials) {
        next = credentials;
    }

    @Override
    public ServiceCredentials getCredentials() {
        return next;
    }
}
