/**
 * cdk-nag acknowledgements (cdk-nag v3 reads the CDK `Validations`
 * acknowledged-rules metadata of a resource and its ancestors). Every one
 * carries its reason; findings of rules such as IAM5 are acknowledged one by
 * one in the `RuleId[Finding]` form, there is no bulk form.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export interface NagAcknowledgement {
  id: string;
  reason: string;
}

export const acknowledge = (scope: IConstruct, rules: readonly NagAcknowledgement[]): void => {
  for (const rule of rules) {
    if (rule.reason.trim().length < 20) throw new Error(`acknowledgement ${rule.id} needs a real reason`);
    Validations.of(scope).acknowledge(rule);
  }
};
