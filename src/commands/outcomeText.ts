import * as vscode from 'vscode';
import type { UnconfirmedReason } from '../domain/completionIntent.ts';
import { findBackendError } from '../domain/errors.ts';

/**
 * Why a request failed, in our own words by kind: the server's text stays in the log and
 * the tooltip, so these sentences can name the cause without repeating what it wrote.
 */
export function failureWhy(error: unknown): string {
  const failure = findBackendError(error);
  switch (failure?.kind) {
    case 'rateLimited':
      return failure.retryAfterSeconds
        ? vscode.l10n.t(
            'the server is rate limiting requests and asks to wait {0} s',
            failure.retryAfterSeconds,
          )
        : vscode.l10n.t('the server is rate limiting requests');
    case 'server':
      return failure.status
        ? vscode.l10n.t('the server failed (HTTP {0})', failure.status)
        : vscode.l10n.t('the server failed');
    case 'timeout':
      return vscode.l10n.t('the server did not answer in time');
    case 'network':
      return vscode.l10n.t('the connection to the server failed or was lost');
    case 'unauthorized':
      return vscode.l10n.t('the server rejected the credentials');
    case 'forbidden':
      return vscode.l10n.t('the server refused access');
    case 'notFound':
      return vscode.l10n.t('the server answered "not found"');
    case 'invalidResponse':
      return vscode.l10n.t("the server's answer could not be read");
    case 'toolError':
      return vscode.l10n.t('the server refused the request');
    case 'canceled':
      return vscode.l10n.t('you stopped waiting for the answer');
    default:
      return vscode.l10n.t('an unexpected error');
  }
}

/** Why a mutation's answer did not confirm whether it was applied. */
export function unconfirmedWhy(reason: UnconfirmedReason): string {
  const why: Record<UnconfirmedReason, string> = {
    timeout: vscode.l10n.t('the server did not answer in time'),
    unreachable: vscode.l10n.t('the connection to the server failed or was lost'),
    server: vscode.l10n.t('the server failed or its answer could not be read'),
    rateLimited: vscode.l10n.t('the server is rate limiting requests'),
    notFound: vscode.l10n.t('the server answered "not found"'),
    auth: vscode.l10n.t('the server rejected the credentials'),
    canceled: vscode.l10n.t('you stopped waiting for the answer'),
  };
  return why[reason];
}
