import { Module } from '@nestjs/common';
import { AuthGuard } from './auth.guard';
import { TokenVerifier } from './token-verifier';
import { ClientRegistrationController, WellKnownController } from './well-known.controller';

/** Bearer-token verification, the auth guard, and the OAuth discovery documents. */
@Module({
  controllers: [WellKnownController, ClientRegistrationController],
  providers: [TokenVerifier, AuthGuard],
  exports: [TokenVerifier, AuthGuard],
})
export class AuthModule {}
